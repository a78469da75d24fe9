package io.simdex.core.text;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class StopWordsTest {
    private final StopWords stopWords = StopWords.defaults();

    @Test
    void contains_commonEnglishAndChinese_true() {
        for (String word : new String[] {"the", "of", "and", "s", "的", "了", "是", "在", "我们", "因为"}) {
            assertTrue(stopWords.contains(word), word);
        }
    }

    @Test
    void contains_topicWords_false() {
        for (String word : new String[] {"river", "council", "computer", "system", "河流", "人", "大", "地铁"}) {
            assertFalse(stopWords.contains(word), word);
        }
    }

    @Test
    void isCjkStopChar_listedSingleCjkCharactersOnly() {
        assertTrue(stopWords.isCjkStopChar('的'));
        assertTrue(stopWords.isCjkStopChar('了'));
        assertFalse(stopWords.isCjkStopChar('河'));
        assertFalse(stopWords.isCjkStopChar('t'), "one-letter English entries are not CJK characters");
    }

    @Test
    void words_everyEntryIsOneToken_soNoEntryIsDeadWeight() {
        Tokenizer tokenizer = new Tokenizer();
        List<String> dead = new ArrayList<>();
        for (String word : stopWords.words()) {
            if (!tokenizer.tokenize(word).equals(List.of(word))) {
                dead.add(word + " -> " + tokenizer.tokenize(word));
            }
        }
        assertEquals(List.of(), dead);
    }
}
