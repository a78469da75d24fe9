package io.simdex.client.batch;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class ContentDigestTest {
    @Test
    void of_emptyText_isTheFirst128BitsOfSha256LikeCoreContentHash() {
        // core's ContentHashTest pins the same vector: SHA-256("") = e3b0c44298fc1c149afbf4c8996fb924...
        assertArrayEquals(new long[] {0xe3b0c44298fc1c14L, 0x9afbf4c8996fb924L},
                ContentDigest.of(" \n", ContentDigest.newSha256()));
    }

    @Test
    void normalise_widthCaseAndWhitespace_folded() {
        assertEquals("hello world 123", ContentDigest.normalise(" ＨＥＬＬＯ\t\tWorld\u3000１２３\n"));
    }
}
