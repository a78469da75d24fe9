package io.simdex.core.text;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class WordCountTest {
    @Test
    void wordsAreRunsOfLettersAndDigits_eachCjkCharacterOne() {
        assertEquals(0, WordCount.of(""));
        assertEquals(0, WordCount.of(" ,.- "));
        assertEquals(4, WordCount.of("the 2nd city-council"));
        assertEquals(6, WordCount.of("地铁二号线 ok"));
        assertEquals(4, WordCount.of("今天,下午"));
        assertEquals(2, WordCount.of("नमस्ते दुनिया"), "a combining vowel sign continues its word");
    }

    @Test
    void countedUpToOneOverTheLimit() {
        assertEquals(3, WordCount.of("a b c d e", 2));
        assertEquals(5, WordCount.of("a b c d e", 5));
        assertEquals(0, WordCount.of("a b", -1));
    }
}
