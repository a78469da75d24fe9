package io.simdex.router.index;

import io.simdex.core.text.ShingleJaccard;

/**
 * Short-text verification of a collection: texts of at most {@code maxChars} (normalised) find
 * candidates within {@code candidateDistance} (up to 7, see {@link IndexRouter}'s neighbour
 * probes) and are duplicates only if the stored text's shingle Jaccard similarity is at least
 * {@code minJaccard}.
 */
public record ShortTextRule(int maxChars, int candidateDistance, double minJaccard, int shingleSize) {
    /** True when a normalised text is short enough to be verified. */
    public boolean applies(String normalised) {
        return normalised.length() <= maxChars;
    }

    public double similarity(String a, String b) {
        return ShingleJaccard.similarity(a, b, shingleSize);
    }
}
