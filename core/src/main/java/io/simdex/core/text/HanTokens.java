package io.simdex.core.text;

/**
 * How {@link Tokenization#WORDS} cuts a run of Han characters into tokens. Letters, digits, kana
 * and Hangul are cut the same way in both.
 */
public enum HanTokens {
    /**
     * HanLP's dictionary words (市政府 / 决定 / 在). A word's cut depends on its neighbours, so one
     * edited or inserted character, or punctuation put into a run, can re-cut the words around it.
     */
    DICTIONARY_WORDS,
    /**
     * One token per Han character (市 / 政 / 府): an edit changes only the characters it touches,
     * and no dictionary is loaded for Chinese text.
     */
    CHARACTERS
}
