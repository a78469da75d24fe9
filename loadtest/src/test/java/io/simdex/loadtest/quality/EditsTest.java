package io.simdex.loadtest.quality;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.text.Normalizer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The corpus builder's edits do what their names say; needs no Debian package. */
class EditsTest {
    private static final String EN = "The quick brown fox jumps over the lazy dog. It was not amused, and it left.\n"
            + "Nobody saw it again! Where did the fox go? Into the forest, said the farmer.";
    private static final String ZH = "床前明月光，疑是地上霜。举头望明月，低头思故乡。";

    @Test
    void substitute_english_replacesExactlyNWords() {
        for (int seed = 0; seed < 50; seed++) {
            String out = edits(Language.ENGLISH, seed).substitute(EN, 3);
            List<String> before = words(EN);
            List<String> after = words(out);
            assertEquals(before.size(), after.size());
            int changed = 0;
            for (int i = 0; i < before.size(); i++) {
                changed += before.get(i).equals(after.get(i)) ? 0 : 1;
            }
            assertEquals(3, changed, out);
        }
    }

    @Test
    void insertAndDelete_english_changeTheWordCountAndKeepTheRestInOrder() {
        for (int seed = 0; seed < 50; seed++) {
            String inserted = edits(Language.ENGLISH, seed).insert(EN, 2);
            assertEquals(words(EN).size() + 2, words(inserted).size());
            assertTrue(isSubsequence(words(EN), words(inserted)), inserted);

            String deleted = edits(Language.ENGLISH, seed).delete(EN, 4);
            assertEquals(words(EN).size() - 4, words(deleted).size());
            assertTrue(isSubsequence(words(deleted), words(EN)), deleted);
        }
    }

    @Test
    void reorder_english_sameSentencesOtherOrder() {
        for (int seed = 0; seed < 50; seed++) {
            String out = edits(Language.ENGLISH, seed).reorder(EN, 1);
            assertNotEquals(EN, out);
            assertEquals(sorted(sentences(EN)), sorted(sentences(out)));
        }
    }

    @Test
    void reorder_oneClause_swapsHalves() {
        String out = edits(Language.ENGLISH, 1).reorder("alpha beta gamma delta", 1);

        assertEquals("gamma delta alpha beta", out);
    }

    @Test
    void noise_bothLanguages_lettersAndDigitsUnchangedUpToCase() {
        for (int seed = 0; seed < 50; seed++) {
            String en = edits(Language.ENGLISH, seed).noise(EN, 5);
            String zh = edits(Language.CHINESE, seed).noise(ZH, 5);
            assertNotEquals(EN, en);
            assertNotEquals(ZH, zh);
            assertEquals(lettersAndDigits(EN), lettersAndDigits(en), en);
            assertEquals(lettersAndDigits(ZH), lettersAndDigits(zh), zh);
        }
    }

    @Test
    void boilerplate_appendsAFooterOfTheAskedSize() {
        String en = edits(Language.ENGLISH, 0).appendBoilerplate(EN, 10);
        String zh = edits(Language.CHINESE, 0).appendBoilerplate(ZH, 16);

        assertTrue(en.startsWith(EN + "\n"));
        assertEquals(10, words(en.substring(EN.length())).size());
        assertTrue(zh.startsWith(ZH + "\n"));
        assertEquals(16, Language.hanCount(zh.substring(ZH.length())));
    }

    @Test
    void wordEdits_chinese_touchTwoCharacterSpans() {
        for (int seed = 0; seed < 50; seed++) {
            String sub = edits(Language.CHINESE, seed).substitute(ZH, 2);
            assertEquals(ZH.length(), sub.length());
            int differing = 0;
            for (int i = 0; i < ZH.length(); i++) {
                differing += ZH.charAt(i) == sub.charAt(i) ? 0 : 1;
            }
            assertTrue(differing >= 2 && differing <= 4, sub);

            assertEquals(Language.hanCount(ZH) + 4, Language.hanCount(edits(Language.CHINESE, seed).insert(ZH, 2)));
            assertEquals(Language.hanCount(ZH) - 4, Language.hanCount(edits(Language.CHINESE, seed).delete(ZH, 2)));
        }
    }

    @Test
    void reorder_chinese_swapsSentences() {
        String out = edits(Language.CHINESE, 3).reorder(ZH, 1);

        assertEquals("举头望明月，低头思故乡。床前明月光，疑是地上霜。", out);
    }

    @Test
    void apply_sameSeed_sameText() {
        for (EditKind kind : EditKind.values()) {
            assertEquals(edits(Language.ENGLISH, 9).apply(kind, EN, 2), edits(Language.ENGLISH, 9).apply(kind, EN, 2), kind.name());
        }
    }

    @Test
    void count_longScalesWithSizeShortIsFixed() {
        assertEquals(3, EditKind.SUBSTITUTE.count(EditKind.Strength.MEDIUM, true, Language.ENGLISH, 100));
        assertEquals(3, EditKind.SUBSTITUTE.count(EditKind.Strength.MEDIUM, true, Language.CHINESE, 200));
        assertEquals(1, EditKind.SUBSTITUTE.count(EditKind.Strength.LIGHT, true, Language.ENGLISH, 20));
        assertEquals(3, EditKind.DELETE.count(EditKind.Strength.HEAVY, false, Language.ENGLISH, 12));
        assertEquals(16, EditKind.BOILERPLATE.count(EditKind.Strength.HEAVY, false, Language.CHINESE, 30));
    }

    private static Edits edits(Language language, long seed) {
        return new Edits(language, new SplittableRandom(seed));
    }

    private static List<String> words(String text) {
        String t = text.strip();
        return t.isEmpty() ? List.of() : Arrays.asList(t.split("\\s+"));
    }

    private static List<String> sentences(String text) {
        return Arrays.asList(text.strip().split("(?<=[.!?])\\s+"));
    }

    private static List<String> sorted(List<String> items) {
        List<String> out = new ArrayList<>(items);
        out.sort(null);
        return out;
    }

    private static boolean isSubsequence(List<String> small, List<String> big) {
        int j = 0;
        for (String w : big) {
            if (j < small.size() && small.get(j).equals(w)) {
                j++;
            }
        }
        return j == small.size();
    }

    private static String lettersAndDigits(String text) {
        StringBuilder b = new StringBuilder();
        Normalizer.normalize(text, Normalizer.Form.NFKC).toLowerCase().codePoints()
                .filter(Character::isLetterOrDigit).forEach(b::appendCodePoint);
        return b.toString();
    }
}
