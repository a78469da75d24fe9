package io.simdex.loadtest.quality;

import io.simdex.core.text.SimHash;
import net.openhft.hashing.LongHashFunction;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The SimHash of the articles (Charikar 2002, as in Manku et al. 2007 and most blog posts): the
 * lower-cased text split into words at anything that is not a letter or digit, each Han
 * character a word of its own, each distinct word hashed to 64 bits and weighted by its count.
 * No normalisation beyond case, no stop words, no n-grams: the baseline simdex's modes improve on.
 */
final class BasicSimHash {
    private static final LongHashFunction HASH = LongHashFunction.xx();

    private BasicSimHash() {
    }

    /** The fingerprint; 0 for a text without words. */
    static long of(String text) {
        Map<String, Integer> counts = new HashMap<>();
        StringBuilder word = new StringBuilder();
        String lower = text.toLowerCase(Locale.ROOT);
        for (int i = 0; i < lower.length(); ) {
            int cp = lower.codePointAt(i);
            i += Character.charCount(cp);
            if (Language.isHan(cp)) {
                flush(word, counts);
                counts.merge(new String(Character.toChars(cp)), 1, Integer::sum);
            } else if (Character.isLetterOrDigit(cp)) {
                word.appendCodePoint(cp);
            } else {
                flush(word, counts);
            }
        }
        flush(word, counts);
        long[] hashes = new long[counts.size()];
        double[] weights = new double[counts.size()];
        int n = 0;
        for (Map.Entry<String, Integer> e : counts.entrySet()) {
            hashes[n] = HASH.hashChars(e.getKey());
            weights[n++] = e.getValue();
        }
        return n == 0 ? 0 : SimHash.of(hashes, weights);
    }

    private static void flush(StringBuilder word, Map<String, Integer> counts) {
        if (word.length() > 0) {
            counts.merge(word.toString(), 1, Integer::sum);
            word.setLength(0);
        }
    }
}
