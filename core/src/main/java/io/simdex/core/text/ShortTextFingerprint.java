package io.simdex.core.text;

/**
 * Which fingerprint a text gets in a collection that gives short texts a {@link BitMinHash}
 * instead of a SimHash: texts of at most {@code maxLetters} letters and digits (normalised) get
 * the MinHash fingerprint, longer ones SimHash. A document is stored with one of them. A text
 * whose length is within a factor {@value #PROBE_BAND} of the boundary probes with both, so a
 * near copy on the other side of the boundary is still found when the two lengths differ by
 * less than that factor (a copy with as much again added, a footer as long as the text; two
 * texts whose lengths differ by more share at most 1 / {@value #PROBE_BAND} of their shingles).
 * The quality evaluation found no more copies with a band of 2.5 or 3, and fewer with 1.5; a
 * second probe costs Dedup time, so the band is no wider.
 *
 * @param maxLetters the longest text, in letters and digits, that gets the MinHash fingerprint
 */
public record ShortTextFingerprint(int maxLetters) {
    /** Measured in loadtest/quality: below it the MinHash fingerprint finds more than SimHash, above it no more. */
    public static final int DEFAULT_MAX_LETTERS = 300;
    /** Largest boundary accepted. */
    public static final int MAX_LETTERS = 100_000;
    /** How far from the boundary, as a factor of it, a text's length probes with both fingerprints. */
    public static final double PROBE_BAND = 2;

    /** @throws IllegalArgumentException if maxLetters is outside 1..{@value #MAX_LETTERS} */
    public ShortTextFingerprint {
        if (maxLetters < 1 || maxLetters > MAX_LETTERS) {
            throw new IllegalArgumentException("maxLetters must be 1.." + MAX_LETTERS + ", got " + maxLetters);
        }
    }

    /** Whether a text of {@code letters} letters and digits is stored with its MinHash fingerprint. */
    public boolean isShort(int letters) {
        return letters <= maxLetters;
    }

    /**
     * The letters and digits of a normalised text as far as they matter here: counted up to the
     * longest text that probes with both fingerprints, plus one ({@link BitMinHash#letters(String, int)}).
     */
    public int letters(String normalised) {
        return BitMinHash.letters(normalised, (int) Math.ceil(maxLetters * PROBE_BAND));
    }

    /** Whether a text of {@code letters} letters and digits probes with both fingerprints. */
    public boolean probesBoth(int letters) {
        return probesBoth(letters, PROBE_BAND);
    }

    /** As {@link #probesBoth(int)} with another band (the quality evaluation compares them); 1: never. */
    public boolean probesBoth(int letters, double band) {
        return letters * band > maxLetters && letters < maxLetters * band;
    }
}
