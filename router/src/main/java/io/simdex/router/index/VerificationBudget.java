package io.simdex.router.index;

import io.simdex.router.shard.Found;

/**
 * The most candidate fingerprints one text probe verifies: its {@link #FINGERPRINTS} nearest,
 * the rest left out unread. Each candidate a probe verifies costs a read of what is kept for it
 * (a sketch, or a short text by id), and on real text their number grows with the store: short
 * English sentences alike in their letters (template sentences: "ID of the topic or fully
 * qualified identifier for the topic") are MinHash candidates of one another in 10 of 44,759
 * unrelated pairs of man-page sentences (loadtest/quality, "Bucket crowding"), some 11,000 per
 * probe of a 50M shard. Without a bound one such probe would cost as much as thousands of others.
 *
 * <p>Why nearest first: a near-duplicate's fingerprint lies near its source's, while 7 of those
 * 10 unrelated pairs lie at distance 8 to 12; the cut falls on those first. A probe cut short
 * counts in {@link SketchReads#capped()}.
 */
public final class VerificationBudget {
    /** Candidate fingerprints a text probe verifies at most. */
    public static final int FINGERPRINTS = 1024;

    private VerificationBudget() {
    }

    /**
     * The nearest {@code max} of {@code found}'s (fingerprint, generation) pairs to {@code probe},
     * in found's order; at one distance, the first in that order. Found itself when it has no
     * more than {@code max}.
     */
    static Found nearest(long probe, Found found, int max) {
        long[] fps = found.fingerprints();
        if (fps.length <= max) {
            return found;
        }
        SketchReads.capped(1);
        int[] atDistance = new int[Long.SIZE + 1];
        for (long fp : fps) {
            atDistance[Long.bitCount(fp ^ probe)]++;
        }
        // Every pair below distance `cut`, and the first `room` at `cut`.
        int cut = 0;
        int below = 0;
        while (below + atDistance[cut] < max) {
            below += atDistance[cut++];
        }
        int room = max - below;
        long[] outF = new long[max];
        long[] outG = new long[max];
        int n = 0;
        for (int i = 0; i < fps.length; i++) {
            int d = Long.bitCount(fps[i] ^ probe);
            if (d < cut || d == cut && room-- > 0) {
                outF[n] = fps[i];
                outG[n++] = found.generations()[i];
            }
        }
        return new Found(outF, outG);
    }
}
