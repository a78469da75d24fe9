package io.simdex.server.store;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class IdSizesTest {
    @Test
    void theGuessUntilEnoughIdsThenTheirMeanRoundedUp() {
        IdSizes sizes = new IdSizes(24);
        for (int i = 0; i < IdSizes.MIN_SEEN - 1; i++) {
            sizes.seen(i % 2 == 0 ? "abc" : "abcd");
        }
        assertEquals(24, sizes.average());
        sizes.seen("abcd");
        assertEquals(4, sizes.average(), "mean 3.5 rounds up");
        assertEquals("xxxx", sizes.sample());
    }

    @Test
    void idsLongerThanTheGuess_keepTheGuess_andSaySo() {
        IdSizes sizes = new IdSizes(24);
        for (int i = 0; i < IdSizes.MIN_SEEN - 1; i++) {
            sizes.seen("https://example.com/a/page/" + i);
        }
        assertFalse(sizes.longerThanGuess(), "too few seen to tell");
        sizes.seen("https://example.com/a/page/last");
        assertEquals(24, sizes.average());
        assertTrue(sizes.longerThanGuess());
    }

    @Test
    void idsOfTheGuessOrShorter_areNotLonger() {
        IdSizes exact = new IdSizes(4);
        IdSizes shorter = new IdSizes(24);
        for (int i = 0; i < IdSizes.MIN_SEEN; i++) {
            exact.seen("abcd");
            shorter.seen("abcd");
        }
        assertFalse(exact.longerThanGuess());
        assertFalse(shorter.longerThanGuess());
    }

    @Test
    void chunksPerEntry_isTheMeanOfEachEntrysChunks_notTheChunksOfTheMeanId() {
        IdSizes sizes = new IdSizes(24);
        assertEquals(7.0, sizes.chunksPerEntry(), "24 + 9 bytes: the guess's, before enough are seen");
        for (int i = 0; i < IdSizes.MIN_SEEN; i++) {
            sizes.seen("x".repeat(i % 2 == 0 ? 16 : 18)); // 25 and 27 bytes an entry: 5 and 6 chunks
        }
        assertEquals(17, sizes.average()); // whose 26 bytes would take 6
        assertEquals(5.5, sizes.chunksPerEntry(), 1e-9);
    }

    @Test
    void idsAreCountedInUtf8Bytes() {
        IdSizes sizes = new IdSizes(24);
        for (int i = 0; i < IdSizes.MIN_SEEN; i++) {
            sizes.seen("新闻"); // 2 x 3 bytes
        }
        assertEquals(6, sizes.average());
        IdSizes mixed = new IdSizes(24);
        for (int i = 0; i < IdSizes.MIN_SEEN; i++) {
            mixed.seen("caf\u00e9\uD83D\uDE00"); // 3 + 2 + 4 bytes
        }
        assertEquals(9, mixed.average());
    }
}
