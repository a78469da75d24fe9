package io.simdex.core.text;

import java.util.ArrayList;
import java.util.List;

/**
 * Word features: the tokenizer's tokens minus stop words, single or as shingles of k
 * consecutive tokens. A text with fewer than k tokens yields one shingle of all of them.
 *
 * <h2>Design</h2>
 * Stop words go before shingling, so "the river of life" and "river life" share the shingle
 * "river life". Shingle tokens are joined with one space, which no token can contain, so two
 * different token sequences never make the same feature.
 */
final class WordFeatures implements FeatureExtractor {
    private static final char SHINGLE_JOINER = ' ';

    private final Tokenizer tokenizer;
    private final StopWords stopWords; // null: keep stop words
    private final int shingleSize;

    WordFeatures(Tokenizer tokenizer, StopWords stopWords, int shingleSize) {
        this.tokenizer = tokenizer;
        this.stopWords = stopWords;
        this.shingleSize = shingleSize;
    }

    @Override
    public List<String> features(String normalized) {
        List<String> tokens = tokenizer.tokenizeNormalized(normalized);
        if (stopWords != null) {
            tokens.removeIf(stopWords::contains);
        }
        return shingleSize == 1 || tokens.isEmpty() ? tokens : shingles(tokens, shingleSize);
    }

    /** Spans where stop words stay, tokens are not shingled and Han runs are cut into characters. */
    @Override
    public int forEachSpan(String normalized, SpanVisitor visitor) {
        return stopWords == null && shingleSize == 1 && tokenizer.cutsSpans() ? tokenizer.forEachSpan(normalized, visitor) : -1;
    }

    /** A text has a feature exactly when it has a token that is not a stop word: shingling keeps any token. */
    @Override
    public boolean any(String normalized) {
        return tokenizer.anyToken(normalized, stopWords);
    }

    private static List<String> shingles(List<String> tokens, int k) {
        int count = Math.max(1, tokens.size() - k + 1);
        int width = Math.min(k, tokens.size());
        List<String> shingles = new ArrayList<>(count);
        StringBuilder joined = new StringBuilder();
        for (int start = 0; start < count; start++) {
            joined.setLength(0);
            for (int i = start; i < start + width; i++) {
                if (i > start) {
                    joined.append(SHINGLE_JOINER);
                }
                joined.append(tokens.get(i));
            }
            shingles.add(joined.toString());
        }
        return shingles;
    }
}
