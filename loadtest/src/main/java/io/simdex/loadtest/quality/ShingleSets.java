package io.simdex.loadtest.quality;

import java.util.Arrays;

/**
 * Character n-gram sets as sorted distinct 64-bit values (n <= 4 characters packed exactly, so
 * two n-grams are equal exactly when their values are; longer ones hashed), and their Jaccard
 * similarity: the ground truth the sketches are scored against.
 */
final class ShingleSets {
    private ShingleSets() {
    }

    /** The n-grams of {@code text}, n >= 1; a text shorter than n is one n-gram. */
    static long[] of(CharSequence text, int n) {
        int len = text.length();
        int count = len <= n ? 1 : len - n + 1;
        long[] out = new long[count];
        for (int i = 0; i < count; i++) {
            long h = n;
            for (int j = i; j < Math.min(len, i + n); j++) {
                h = n <= 4 ? (h << Character.SIZE) | text.charAt(j) : h * 0x9E3779B97F4A7C15L + text.charAt(j);
            }
            out[i] = h;
        }
        Arrays.sort(out);
        int distinct = 0;
        for (int i = 0; i < out.length; i++) {
            if (i == 0 || out[i] != out[i - 1]) {
                out[distinct++] = out[i];
            }
        }
        return Arrays.copyOf(out, distinct);
    }

    static double jaccard(long[] a, long[] b) {
        int i = 0;
        int j = 0;
        int common = 0;
        while (i < a.length && j < b.length) {
            if (a[i] == b[j]) {
                common++;
                i++;
                j++;
            } else if (a[i] < b[j]) {
                i++;
            } else {
                j++;
            }
        }
        return (double) common / (a.length + b.length - common);
    }
}
