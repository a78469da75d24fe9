package io.simdex.core.text;

import java.util.HashSet;
import java.util.Set;

/**
 * The exact similarity that verifies short-text candidates: Jaccard similarity of the two texts'
 * sets of character n-grams (shingles). SimHash is unreliable on short texts, where one word is
 * a large share of the features; the Jaccard of shingles is exact and cheap at that length.
 */
public final class ShingleJaccard {
    private ShingleJaccard() {
    }

    /**
     * |A ∩ B| / |A ∪ B| of the n-gram sets, 0..1. A text shorter than n is one shingle, itself;
     * two empty texts are identical (1.0).
     *
     * @throws IllegalArgumentException if n < 1
     */
    public static double similarity(String a, String b, int n) {
        if (n < 1) {
            throw new IllegalArgumentException("shingle size must be >= 1, was " + n);
        }
        Set<String> sa = shingles(a, n);
        Set<String> sb = shingles(b, n);
        if (sa.isEmpty() && sb.isEmpty()) {
            return 1.0;
        }
        int common = 0;
        for (String s : sa) {
            common += sb.contains(s) ? 1 : 0;
        }
        return (double) common / (sa.size() + sb.size() - common);
    }

    private static Set<String> shingles(String text, int n) {
        Set<String> out = new HashSet<>();
        if (text.isEmpty()) {
            return out;
        }
        if (text.length() < n) {
            out.add(text);
            return out;
        }
        for (int i = 0; i + n <= text.length(); i++) {
            out.add(text.substring(i, i + n));
        }
        return out;
    }
}
