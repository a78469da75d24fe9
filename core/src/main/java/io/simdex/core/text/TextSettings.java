package io.simdex.core.text;

/**
 * How text becomes features: the tokenization, the weighting, the shingle size and whether stop
 * words go. Immutable and validated on construction; fingerprints made with different settings
 * are not comparable.
 *
 * <p>{@code shingleSize} is the number of consecutive tokens per feature with
 * {@link Tokenization#WORDS} (1 = single words) and the n of the character n-grams with
 * {@link Tokenization#CHAR_NGRAMS}. A text shorter than one shingle yields one feature made of
 * all it has, so short texts still get a fingerprint.
 *
 * @param tokenization  what features are cut from
 * @param weighting     TF, or TF-IDF with an {@link IdfTable}
 * @param shingleSize   tokens (WORDS) or characters (CHAR_NGRAMS) per feature, 1..{@value #MAX_SHINGLE_SIZE}
 * @param dropStopWords whether the built-in English and Chinese stop words are removed first
 * @param hanTokens     how {@link Tokenization#WORDS} cuts Han runs; ignored by CHAR_NGRAMS
 */
public record TextSettings(Tokenization tokenization, Weighting weighting, int shingleSize, boolean dropStopWords,
                           HanTokens hanTokens) {
    /** Largest shingle size accepted; longer shingles make every feature unique and SimHash useless. */
    public static final int MAX_SHINGLE_SIZE = 16;
    /** The n of {@link #charNgrams()}: trigrams are the usual choice for near-duplicate text. */
    public static final int DEFAULT_NGRAM_SIZE = 3;

    private static final TextSettings DEFAULTS = new TextSettings(Tokenization.WORDS, Weighting.TF, 1, true);
    private static final TextSettings RECOMMENDED = new TextSettings(Tokenization.WORDS, Weighting.TF, 1, false, HanTokens.CHARACTERS);
    private static final TextSettings CHAR_NGRAMS =
            new TextSettings(Tokenization.CHAR_NGRAMS, Weighting.TF, DEFAULT_NGRAM_SIZE, true);

    /** @throws IllegalArgumentException on a null enum or a shingle size outside 1..16 */
    public TextSettings {
        if (tokenization == null || weighting == null || hanTokens == null) {
            throw new IllegalArgumentException("tokenization, weighting and hanTokens must be set, got "
                    + tokenization + ", " + weighting + ", " + hanTokens);
        }
        if (shingleSize < 1 || shingleSize > MAX_SHINGLE_SIZE) {
            throw new IllegalArgumentException(
                    "shingleSize must be 1.." + MAX_SHINGLE_SIZE + ", got " + shingleSize);
        }
    }

    /**
     * Settings with Han runs cut into HanLP's dictionary words, as every collection had before
     * {@link HanTokens} existed.
     *
     * @throws IllegalArgumentException on a null enum or a shingle size outside 1..16
     */
    public TextSettings(Tokenization tokenization, Weighting weighting, int shingleSize, boolean dropStopWords) {
        this(tokenization, weighting, shingleSize, dropStopWords, HanTokens.DICTIONARY_WORDS);
    }

    /**
     * Single words (HanLP for Chinese), TF weighting, stop words dropped: the pipeline of
     * {@link TextFingerprinter#defaults()}, and of collections created before
     * {@link #recommended()}.
     */
    public static TextSettings defaults() {
        return DEFAULTS;
    }

    /**
     * Single words with each Han character a token, TF weighting, stop words kept: what a new
     * collection gets. On the tuning half of loadtest/quality's corpus its F1 at distance 3 was
     * at least that of {@link #defaults()} for English and Chinese, long and short texts (mean
     * 0.757 against 0.729), with no false positive; its RESULTS.md has the figures.
     */
    public static TextSettings recommended() {
        return RECOMMENDED;
    }

    /** Character trigrams, TF weighting, stop words dropped. */
    public static TextSettings charNgrams() {
        return CHAR_NGRAMS;
    }
}
