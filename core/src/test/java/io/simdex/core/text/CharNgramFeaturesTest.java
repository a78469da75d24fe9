package io.simdex.core.text;

import io.simdex.fingerprint.Hamming;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CharNgramFeaturesTest {
    private final TextFingerprinter trigrams = TextFingerprinter.of(TextSettings.charNgrams());

    @Test
    void terms_gapsBecomeOneSpace_stopWordsOut() {
        assertEquals(List.of("riv", "ive", "ver", "er ", "r b", " ba", "ban", "ank"),
                trigrams.terms("The River,  bank!"));
    }

    @Test
    void terms_cjkStopCharactersRemovedOneByOne() {
        // 的 goes without a gap: there is no segmentation to know it was a word of its own.
        assertEquals(List.of("河流水", "流水质"), trigrams.terms("河流的水质"));
    }

    @Test
    void terms_shorterThanN_oneFeatureOfEverything() {
        assertEquals(List.of("ab"), trigrams.terms("AB"));
        assertEquals(List.of(), trigrams.terms("the of ... 的"));
    }

    @Test
    void terms_supplementaryCharacters_neverSplit() {
        assertEquals(List.of("𠀀𠀁𠀂", "𠀁𠀂𠀃"), trigrams.terms("𠀀𠀁𠀂𠀃"));
    }

    @Test
    void fingerprint_nearDuplicateShortTexts_closerThanUnrelated() {
        assertCloser("The quick brown fox jumps over the lazy dog near the old river bank.",
                "The quick brown fox jumped over the lazy dog near the old river bank!",
                "Stock markets fell sharply on Monday after the central bank raised interest rates.");
        assertCloser("Heavy rain is expected across the northern valleys tonight, with flooding likely.",
                "Heavy rains are expected across the northern valleys tonight, with flooding likely.",
                "The orchestra will perform three symphonies at the concert hall this weekend.");
        assertCloser("市政府决定在河流两岸修建新的防洪堤坝，工程预计明年完工。",
                "市政府决定在河流两岸修建新的防洪大堤，工程预计明年完工。",
                "今年春季气温适宜，雨水充足，新茶的品质明显好于往年。");
    }

    private void assertCloser(String text, String nearDuplicate, String unrelated) {
        long fingerprint = trigrams.fingerprint(text);
        int near = Hamming.distance(fingerprint, trigrams.fingerprint(nearDuplicate));
        int far = Hamming.distance(fingerprint, trigrams.fingerprint(unrelated));
        assertTrue(near < far, "near " + near + " should be below unrelated " + far);
        assertTrue(far > 10, "unrelated only " + far + " apart");
    }
}
