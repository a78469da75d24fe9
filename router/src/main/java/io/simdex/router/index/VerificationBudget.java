package io.simdex.router.index;

import io.simdex.fingerprint.Hamming;
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
 *
 * <p>Remote shards cut too: a ProbeMany whose probes are all verified asks each node to resolve
 * the ids of only each probe's nearest {@link #FINGERPRINTS} matches ({@code resolve_nearest}),
 * so far candidates cost no id lookups there. Those hold every match of the node's that this
 * cut keeps, but for ties at the cut's distance, which the router resolves in its second round.
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
        int[] kept = Hamming.nearest(probe, fps, fps.length, max);
        long[] outF = new long[kept.length];
        long[] outG = new long[kept.length];
        for (int i = 0; i < kept.length; i++) {
            outF[i] = fps[kept[i]];
            outG[i] = found.generations()[kept[i]];
        }
        return new Found(outF, outG);
    }
}
