package io.simdex.router.index;

import io.simdex.core.text.MinHashSketch;
import io.simdex.core.text.Sketcher;

/**
 * Sketch verification of a collection: a text's candidates within {@code candidateDistance}
 * (up to 7, see {@link IndexRouter}'s neighbour probes) are duplicates when their sketches'
 * estimated Jaccard similarity is at least {@code minJaccard}, at every distance: an identical
 * text estimates 1, and a candidate within max_distance whose text shares too few n-grams is a
 * SimHash collision, not a near-duplicate.
 *
 * <h2>Stored form</h2>
 * A sketch is kept in the shard's text store (id -> value) as {@link #MARK} followed by one
 * ASCII character per bin ({@link MinHashSketch#toString()}): 61 bytes of UTF-8. Short texts of a
 * short-text collection are kept there as themselves; a short text that began with NUL and
 * looked like a sketch would be read as one, which costs only its own verification.
 */
public record SketchRule(int candidateDistance, double minJaccard, Sketcher sketcher) {
    /** First character of a stored sketch; no normalised text a client sends starts with it in practice. */
    static final char MARK = '\u0000';

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

    /** Whether a stored value is a sketch rather than a text. */
    static boolean isSketch(String stored) {
        return !stored.isEmpty() && stored.charAt(0) == MARK;
    }
}
