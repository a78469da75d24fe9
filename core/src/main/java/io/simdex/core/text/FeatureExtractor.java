package io.simdex.core.text;

import java.util.List;

/**
 * Turns normalised text into the features a fingerprint hashes, in text order and with
 * repeats: a feature that occurs three times is listed three times, which is its term
 * frequency. Implementations are immutable and thread-safe.
 */
interface FeatureExtractor {
    /** The features of text already passed through {@link Normalization#apply}; empty if none. */
    List<String> features(String normalized);

    /**
     * Visits the features of {@link #features} in text order as spans of {@code normalized},
     * without making them strings, where each feature is one (a token as the text has it, not a
     * shingle or a segmenter's word); returns their count, or -1 where they are not spans (and
     * visits nothing).
     */
    default int forEachSpan(String normalized, SpanVisitor visitor) {
        return -1;
    }

    /** Feature {@code normalized[from, to)}. */
    interface SpanVisitor {
        void visit(int from, int to);
    }

    /** Whether {@link #features} of this text is not empty; may stop at the first feature. */
    default boolean any(String normalized) {
        return !features(normalized).isEmpty();
    }

    /** The extractor for these settings; only WORDS builds a HanLP segmenter. */
    static FeatureExtractor of(TextSettings settings) {
        StopWords stopWords = settings.dropStopWords() ? StopWords.defaults() : null;
        return settings.tokenization() == Tokenization.WORDS
                ? new WordFeatures(new Tokenizer(settings.hanTokens()), stopWords, settings.shingleSize())
                : new CharNgramFeatures(stopWords, settings.shingleSize());
    }
}
