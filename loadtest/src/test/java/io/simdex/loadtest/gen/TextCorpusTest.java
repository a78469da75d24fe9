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
}
