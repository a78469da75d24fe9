package io.simdex.core.text;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class TextSettingsTest {
    @Test
    void defaults_wordsTfSingleWordsStopWordsDropped() {
        assertEquals(new TextSettings(Tokenization.WORDS, Weighting.TF, 1, true), TextSettings.defaults());
    }

    @Test
    void defaults_hanRunsAsHanLpWords() {
        assertEquals(HanTokens.DICTIONARY_WORDS, TextSettings.defaults().hanTokens());
        assertEquals(HanTokens.DICTIONARY_WORDS, new TextSettings(Tokenization.WORDS, Weighting.TF, 2, false).hanTokens());
    }

    @Test
    void recommended_wordsTfHanCharactersStopWordsKept() {
        assertEquals(new TextSettings(Tokenization.WORDS, Weighting.TF, 1, false, HanTokens.CHARACTERS), TextSettings.recommended());
    }

    @Test
    void charNgrams_trigrams() {
        assertEquals(new TextSettings(Tokenization.CHAR_NGRAMS, Weighting.TF, 3, true), TextSettings.charNgrams());
    }

    @Test
    void new_shingleSizeAtBounds_accepted() {
        assertEquals(1, new TextSettings(Tokenization.WORDS, Weighting.TF, 1, true).shingleSize());
        assertEquals(16, new TextSettings(Tokenization.WORDS, Weighting.TF, 16, true).shingleSize());
    }

    @Test
    void new_shingleSizeOutOfRange_throwsWithValue() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new TextSettings(Tokenization.WORDS, Weighting.TF, 0, true));
        assertEquals("shingleSize must be 1..16, got 0", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new TextSettings(Tokenization.CHAR_NGRAMS, Weighting.TF, 17, true));
    }

    @Test
    void new_nullEnum_throws() {
        assertThrows(IllegalArgumentException.class, () -> new TextSettings(null, Weighting.TF, 1, true));
        assertThrows(IllegalArgumentException.class, () -> new TextSettings(Tokenization.WORDS, null, 1, true));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new TextSettings(Tokenization.WORDS, Weighting.TF, 1, true, null));
        assertEquals("tokenization, weighting and hanTokens must be set, got WORDS, TF, null", e.getMessage());
    }
}
