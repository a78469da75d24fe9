package io.simdex.core.text;

import io.simdex.core.Hashing;

import java.util.Arrays;

/**
 * A 64-bit fingerprint made of one bit of each of 64 MinHash values (b-bit minwise hashing with
 * b = 1, Li and König 2010): two texts whose shingle sets have Jaccard similarity J differ in
 * each bit with probability (1 - J) / 2, so their Hamming distance estimates 32 (1 - J).
 * SimHash bits differ with probability arccos(cos) / pi, which grows with the square root of a
 * small change: two characters replaced in a 20-character Chinese post move SimHash about 9
 * bits and this fingerprint about 6. It fits the same Hamming index as SimHash, so a collection
 * can fingerprint its short texts with it (loadtest/quality measures where it wins).
 *
 * <p>Shingles: each Han character alone, every other letter or digit with the one after it
 * (which may be Han), over the letters and digits of the normalised text (all its characters
 * if it has none); a text of one letter is that letter.
 *
 * <p>Cost: one 64-bit hash per shingle, then per bin one xor, one multiply and one compare:
 * each bin orders the shingles by {@code (h ^ seed) * odd}, a bijection of the strong hash h
 * with its own seed and multiplier. The bit kept is bit 31 of the bin's minimum, which the
 * ordering (decided by the high bits) leaves unbiased. One 512-byte array per text.
 */
public final class BitMinHash {
    private static final int BINS = Long.SIZE;
    private static final long[] SEEDS = new long[BINS];
    private static final long[] MULTIPLIERS = new long[BINS];
    /** Tags a letter pair, so it never equals a single character's shingle. */
    private static final long PAIR = 1L << 40;
    private static final int KEPT_BIT = 31;

    static {
        for (int k = 0; k < BINS; k++) {
            SEEDS[k] = Hashing.mix64(0x5DEECE66DL + k);
            MULTIPLIERS[k] = Hashing.mix64(0x2545F4914F6CDD1DL + k) | 1;
        }
    }

    private BitMinHash() {
    }

    /** The fingerprint of a normalised text (NFKC, lower case: see {@code ContentHash.normalise}). */
    public static long of(String normalised) {
        long[] min = new long[BINS];
        Arrays.fill(min, Long.MAX_VALUE);
        if (!shingle(normalised, true, min)) {
            shingle(normalised, false, min);
        }
        long fp = 0;
        for (int k = 0; k < BINS; k++) {
            fp |= ((min[k] >>> KEPT_BIT) & 1L) << k;
        }
        return fp;
    }

    /** How many letters and digits {@link #of} shingles in a normalised text. */
    public static int letters(String normalised) {
        int n = 0;
        for (int i = 0; i < normalised.length(); i++) {
            n += Character.isLetterOrDigit(normalised.charAt(i)) ? 1 : 0;
        }
        return n;
    }

    /**
     * Adds the shingles of the text's letters and digits ({@code lettersOnly}) or of all its
     * characters to the bins' minima; false when there was no character to take.
     */
    private static boolean shingle(String text, boolean lettersOnly, long[] min) {
        char previous = 0;
        boolean any = false;
        boolean previousPairs = false;
        int count = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (lettersOnly && !Character.isLetterOrDigit(c)) {
                continue;
            }
            count++;
            if (previousPairs) {
                add(PAIR | ((long) previous << Character.SIZE) | c, min);
            }
            boolean han = isHan(c);
            if (han) {
                add(c, min);
            }
            previous = c;
            previousPairs = !han;
            any = true;
        }
        if (count == 1 && previousPairs) {
            add(previous, min);
        }
        return any;
    }

    private static void add(long shingle, long[] min) {
        long h = Hashing.mix64(shingle);
        for (int k = 0; k < BINS; k++) {
            long v = (h ^ SEEDS[k]) * MULTIPLIERS[k];
            if (v < min[k]) {
                min[k] = v;
            }
        }
    }

    private static boolean isHan(char c) {
        if (c < 0x2E80) {
            return false;
        }
        return (c >= 0x4E00 && c <= 0x9FFF) || Character.UnicodeScript.of(c) == Character.UnicodeScript.HAN;
    }
}
