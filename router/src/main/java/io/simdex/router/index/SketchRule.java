package io.simdex.router.index;

import io.simdex.core.text.MinHashSketch;
import io.simdex.core.text.Sketcher;
import io.simdex.server.store.FingerprintSketch;

/**
 * Sketch verification of a collection: a text's candidates within {@code candidateDistance}
 * (up to 7, all of them; up to 12, those the neighbour buckets hold: see
 * {@link io.simdex.fingerprint.BlockTables#MAX_CANDIDATE_DISTANCE}) are duplicates when their sketches'
 * estimated Jaccard similarity is at least {@code minJaccard}, at every distance: an identical
 * text estimates 1, and a candidate within max_distance whose text shares too few n-grams is a
 * SimHash collision, not a near-duplicate. A probe reads the buckets of a probe within
 * {@code bucketDistance}: its candidate distance, unless {@link #readingBucketsOf} narrowed it.
 *
 * <h2>Stored form</h2>
 * A sketch is {@link #MARK} followed by one ASCII character per bin
 * ({@link MinHashSketch#toString()}). The shard's text store keeps it under its document's
 * fingerprint ({@link FingerprintSketch}: the low 5 bits of each bin, 38 bytes), so every id of a
 * fingerprint is judged by the sketch of the last text stored with it (fingerprints shared by
 * texts whose sketches disagree are SimHash collisions of distance 0, and rare); sketches
 * stored before that are kept under their ids (6 bits a bin) and read there. Short texts of a
 * short-text collection are kept by id as themselves; a short text that began with NUL and
 * looked like a sketch would be read as one, which costs only its own verification.
 */
public record SketchRule(int candidateDistance, double minJaccard, Sketcher sketcher, int bucketDistance) {
    /** First character of a stored sketch; no normalised text a client sends starts with it in practice. */
    static final char MARK = '\u0000';
    /** A bin's value v is stored as the character {@code DIGIT_ZERO + v} ({@link MinHashSketch#toString()}). */
    private static final char DIGIT_ZERO = '0';

    /** A rule whose probes read the buckets of its candidate distance. */
    public SketchRule(int candidateDistance, double minJaccard, Sketcher sketcher) {
        this(candidateDistance, minJaccard, sketcher, candidateDistance);
    }

    /**
     * This rule, its probes reading only the buckets of a probe within {@code distance}
     * ({@link FanoutQuery#variants}): its candidates are those within its candidate distance
     * that these buckets hold. A text's second probe reads fewer buckets than its first
     * (Target's probe checks say why).
     */
    public SketchRule readingBucketsOf(int distance) {
        return new SketchRule(candidateDistance, minJaccard, sketcher, Math.min(distance, candidateDistance));
    }

    /** The sketch of a normalised text. */
    public MinHashSketch sketch(String normalised) {
        return sketcher.sketch(normalised);
    }

    /** Whether a candidate at {@code distance} whose sketch estimates {@code estimate} is a duplicate. */
    boolean keeps(int distance, double estimate) {
        return distance <= candidateDistance && estimate >= minJaccard;
    }

    /** The stored form of a sketch. */
    static String stored(MinHashSketch sketch) {
        return MARK + sketch.toString();
    }

    /**
     * The estimated Jaccard similarity of {@code sketch}'s text and what {@code stored} holds: a
     * stored sketch compared in place, else (not a sketch of this shape, or a short text) the
     * sketch of the value as a normalised text.
     */
    double estimate(MinHashSketch sketch, String stored) {
        if (isSketch(stored)) {
            double est = sketch.estimateStored(stored, 1);
            if (est >= 0) {
                return est;
            }
        }
        return sketch.estimate(of(stored));
    }

    /**
     * The sketch a stored value holds: the value's own if it is a stored sketch, else the sketch
     * of the value as a normalised text (a short text kept for short-text verification).
     */
    MinHashSketch of(String stored) {
        if (!stored.isEmpty() && stored.charAt(0) == MARK) {
            MinHashSketch s = MinHashSketch.parse(stored.substring(1), sketcher.bits());
            if (s != null) {
                return s;
            }
        }
        return sketch(stored);
    }

    /**
     * The estimate of {@code sketch}'s text against a fingerprint's kept sketch
     * ({@link #keptByFingerprint}: its bins' low {@link FingerprintSketch#BITS} bits); a value of
     * another form is read as {@link #estimate} reads it.
     */
    double estimateKeptByFingerprint(MinHashSketch sketch, String kept) {
        if (isSketch(kept)) {
            double est = sketch.estimateStored(kept, 1, FingerprintSketch.BITS);
            if (est >= 0) {
                return est;
            }
        }
        return estimate(sketch, kept);
    }

    /**
     * As {@link #estimateKeptByFingerprint}, both sketches packed ({@link FingerprintSketch#pack(MinHashSketch)}
     * for the probe's): compared 8 bins at a time.
     */
    static double estimatePacked(byte[] probe, byte[] kept) {
        return MinHashSketch.estimate(FingerprintSketch.equalBins(probe, kept), FingerprintSketch.BINS, FingerprintSketch.BITS);
    }

    /**
     * What a fingerprint keeps of the stored form of a sketch ({@link #stored}): the low
     * {@link FingerprintSketch#BITS} bits of each bin, for sketches of
     * {@link FingerprintSketch#BINS} bins; null for others (kept by id, as given).
     */
    static String keptByFingerprint(String stored) {
        if (!isSketch(stored) || stored.length() != 1 + FingerprintSketch.BINS) {
            return null;
        }
        int mask = (1 << FingerprintSketch.BITS) - 1;
        char[] out = stored.toCharArray();
        for (int i = 1; i < out.length; i++) {
            int v = out[i] - DIGIT_ZERO;
            if (v < 0 || v >= 1 << MinHashSketch.MAX_BITS) {
                return null;
            }
            out[i] = (char) (DIGIT_ZERO + (v & mask));
        }
        return new String(out);
    }

    /** {@link #keptByFingerprint(String)} of each stored value (null stays null). */
    static String[] keptByFingerprint(String[] stored) {
        String[] out = new String[stored.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = stored[i] == null ? null : keptByFingerprint(stored[i]);
        }
        return out;
    }

    /** Whether a stored value is a sketch rather than a text. */
    static boolean isSketch(String stored) {
        return !stored.isEmpty() && stored.charAt(0) == MARK;
    }
}
