package io.simdex.loadtest.quality;

import io.simdex.core.Hashing;

import java.util.Arrays;

/**
 * A 64-bit fingerprint made of one bit of each of 64 MinHash values (b-bit minwise hashing with
 * b = 1, Li and König 2010): two texts whose shingle sets have Jaccard similarity J differ in
 * each bit with probability (1 - J) / 2, so their Hamming distance estimates 32 (1 - J). SimHash
 * bits differ with probability arccos(cos) / pi, which grows with the square root of a small
 * change: two characters replaced in a 20-character Chinese post move SimHash about 9 bits and
 * this fingerprint about 6. It fits the same Hamming index, so it is scored here as another
 * candidate source.
 *
 * <p>Shingles: each Han character alone, every other letter or digit with the one after it,
 * over the letters and digits of the normalised text. 64 independent hash functions (a seeded
 * finaliser each): the evaluation's reference, not a fast implementation.
 */
final class BitMinHash {
    private static final long[] SEEDS = new long[Long.SIZE];

    static {
        for (int i = 0; i < SEEDS.length; i++) {
            SEEDS[i] = Hashing.mix64(0x5DEECE66DL + i);
        }
    }

    private BitMinHash() {
    }

    /** The fingerprint of a normalised text's letters and digits ({@code letters}, non-empty). */
    static long of(CharSequence letters) {
        long[] min = new long[Long.SIZE];
        Arrays.fill(min, Long.MAX_VALUE);
        int n = letters.length();
        for (int i = 0; i < n; i++) {
            char c = letters.charAt(i);
            long shingle;
            if (Character.UnicodeScript.of(c) == Character.UnicodeScript.HAN) {
                shingle = c;
            } else if (i + 1 < n) {
                shingle = (1L << 40) | ((long) c << Character.SIZE) | letters.charAt(i + 1);
            } else if (n == 1) {
                shingle = c;
            } else {
                continue;
            }
            for (int k = 0; k < Long.SIZE; k++) {
                long h = Hashing.mix64(shingle ^ SEEDS[k]) >>> 1;
                if (h < min[k]) {
                    min[k] = h;
                }
            }
        }
        long fp = 0;
        for (int k = 0; k < Long.SIZE; k++) {
            fp |= (min[k] & 1L) << k;
        }
        return fp;
    }
}
