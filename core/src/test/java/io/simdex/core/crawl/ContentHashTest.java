package io.simdex.core.crawl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ContentHashTest {
    @Test
    void of_emptyText_isTheFirst128BitsOfSha256() {
        // SHA-256("") = e3b0c442 98fc1c14 9afbf4c8 996fb924 27ae41e4 649b934c a495991b 7852b855
        assertEquals("e3b0c44298fc1c149afbf4c8996fb924", ContentHash.of("").toString());
        assertEquals(ContentHash.of(""), ContentHash.of(" \t\n "), "only whitespace normalises to empty");
    }

    @Test
    void of_layoutCaseAndWidthNoise_sameHash() {
        ContentHash plain = ContentHash.of("Hello World 123");

        assertEquals(plain, ContentHash.of("  hello\n\tWORLD   123 "));
        assertEquals(plain, ContentHash.of("ＨＥＬＬＯ World\u3000１２３"), "full-width folds under NFKC");
    }

    @Test
    void of_punctuationOrWordOrderDiffers_otherHash() {
        ContentHash plain = ContentHash.of("hello world");

        assertNotEquals(plain, ContentHash.of("hello, world"));
        assertNotEquals(plain, ContentHash.of("world hello"));
        assertNotEquals(plain, ContentHash.of("helloworld"), "a space between words is content");
    }

    @Test
    void normalise_collapsesAndTrimsWhitespace() {
        assertEquals("a b c", ContentHash.normalise("\u00a0A  b\r\nc \u2003"));
    }

    @Test
    void compareTo_unsignedHighThenLow() {
        assertTrue(new ContentHash(-1L, 0).compareTo(new ContentHash(1L, 5)) > 0);
        assertTrue(new ContentHash(1L, 2).compareTo(new ContentHash(1L, -1L)) < 0);
    }

    @Test
    void of_null_rejected() {
        assertThrows(IllegalArgumentException.class, () -> ContentHash.of(null));
    }
}
