package io.simdex.loadtest.gen;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TextCorpusTest {
    @Test
    void nearDuplicate_english_replacesAtMostEditsWholeWords() {
        TextCorpus corpus = new TextCorpus(7);
        String source = corpus.document(TextCorpus.Language.ENGLISH, 200);
        String near = corpus.nearDuplicate(source, TextCorpus.Language.ENGLISH, 3);

        String[] a = source.split(" ");
        String[] b = near.split(" ");
        assertEquals(a.length, b.length);
        int changed = 0;
        for (int i = 0; i < a.length; i++) {
            changed += a[i].equals(b[i]) ? 0 : 1;
        }
        assertTrue(changed <= 3, "changed " + changed);
    }

    @Test
    void document_chinese_hasNoSpacesAndEndsWithAFullStop() {
        String text = new TextCorpus(7).document(TextCorpus.Language.CHINESE, 50);
        assertTrue(!text.contains(" ") && text.endsWith("。"), text);
    }

    @Test
    void wide_english_drawsFromTheIdfVocabulary_andNearDuplicateReplacesAtMostEditsWords() {
        TextCorpus corpus = TextCorpus.wide(7);
        String source = corpus.document(TextCorpus.Language.ENGLISH, 300);
        String near = corpus.nearDuplicate(source, TextCorpus.Language.ENGLISH, 4);

        String[] a = source.split(" ");
        String[] b = near.split(" ");
        assertEquals(300, a.length);
        assertEquals(a.length, b.length);
        int changed = 0;
        for (int i = 0; i < a.length; i++) {
            changed += a[i].equals(b[i]) ? 0 : 1;
        }
        assertTrue(changed <= 4, "changed " + changed);
        assertTrue(java.util.Arrays.stream(a).map(w -> w.replaceAll("[^a-z]", "").toLowerCase()).distinct().count() > 100,
                "a wide vocabulary: " + source);
    }

    @Test
    void wide_chinese_isHanCharactersInSentences_andNearDuplicateKeepsItsLength() {
        TextCorpus corpus = TextCorpus.wide(7);
        String text = corpus.document(TextCorpus.Language.CHINESE, 100);
        String near = corpus.nearDuplicate(text, TextCorpus.Language.CHINESE, 3);
        assertTrue(!text.contains(" ") && text.endsWith("。"), text);
        assertEquals(text.length(), near.length());
        int changed = 0;
        for (int i = 0; i < text.length(); i++) {
            changed += text.charAt(i) == near.charAt(i) ? 0 : 1;
        }
        assertTrue(changed > 0 && changed <= 6, "changed " + changed);
    }

    @Test
    void wide_documentsOfOneSeed_areReproducible() {
        assertEquals(TextCorpus.wide(3).document(TextCorpus.Language.ENGLISH, 50), TextCorpus.wide(3).document(TextCorpus.Language.ENGLISH, 50));
    }
}
