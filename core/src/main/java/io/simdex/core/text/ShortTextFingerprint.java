package io.simdex.core.text;

/**
 * Which fingerprint a text gets in a collection that gives short texts a {@link BitMinHash}
 * instead of a SimHash: texts of at most {@code maxLetters} letters and digits (normalised) get
 * the MinHash fingerprint, longer ones SimHash. A document is stored with one of them. A text
 * whose length is within a factor 1 / minJaccard of the boundary probes with both, so a
 * near-duplicate on the other side of the boundary is still found: two texts whose lengths
 * differ by more than that factor cannot reach a shingle Jaccard of minJaccard (the shorter
 * one's shingles over the longer one's, at best).
 *
 * @param maxLetters the longest text, in letters and digits, that gets the MinHash fingerprint
 * @param minJaccard the least Jaccard similarity of a duplicate, (0, 1]: the verification's threshold
 */
public record ShortTextFingerprint(int maxLetters, double minJaccard) {
    /** Measured in loadtest/quality: below it the MinHash fingerprint finds more than SimHash, above it no more. */
    public static final int DEFAULT_MAX_LETTERS = 300;
    /** Largest boundary accepted. */
    public static final int MAX_LETTERS = 100_000;

    /** @throws IllegalArgumentException if maxLetters is outside 1..{@value #MAX_LETTERS} or minJaccard outside (0, 1] */
    public ShortTextFingerprint {
        if (maxLetters < 1 || maxLetters > MAX_LETTERS) {
            throw new IllegalArgumentException("maxLetters must be 1.." + MAX_LETTERS + ", got " + maxLetters);
        }
        if (!(minJaccard > 0 && minJaccard <= 1)) {
            throw new IllegalArgumentException("minJaccard must be in (0, 1], got " + minJaccard);
        }
    }

    /** Whether a text of {@code letters} letters and digits is stored with its MinHash fingerprint. */
    public boolean isShort(int letters) {
        return letters <= maxLetters;
    }

    /** Whether a text of {@code letters} letters and digits probes with both fingerprints. */
    public boolean probesBoth(int letters) {
        return letters >= maxLetters * minJaccard && letters * minJaccard <= maxLetters;
    }
}
