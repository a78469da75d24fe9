package io.simdex.core.text;

/**
 * What a fingerprint's features are cut from. Both modes see the normalised text (NFKC, lower
 * case) and ignore whitespace, punctuation and symbols.
 */
public enum Tokenization {
    /**
     * Words: runs of Han characters are segmented by HanLP, runs of kana or Hangul and runs of
     * letters and digits are one token each; a feature is {@code shingleSize} consecutive tokens.
     */
    WORDS,
    /**
     * Character n-grams (n = {@code shingleSize}, usually 3) over the letters, digits and CJK
     * characters, with one space where the text had a gap. No dictionary, any language.
     */
    CHAR_NGRAMS
}
