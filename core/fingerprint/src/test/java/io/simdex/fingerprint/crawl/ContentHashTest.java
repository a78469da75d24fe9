package io.simdex.fingerprint.crawl;

import org.junit.jupiter.api.Test;

import java.security.MessageDigest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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

    /**
     * The ASCII shortcuts give what the definitions give: {@code fold} is NFKC then lower case,
     * and {@code ofNormal} of a normal form is {@code of} of it (which normalises it again), on
     * random ASCII, Latin, full-width, Greek, Han and combining-mark texts with all kinds of
     * whitespace.
     */
    @Test
    void foldAndOfNormal_equalTheDefinitions_onRandomTexts() throws Exception {
        String alphabet = "aZ9 .,\t\n\r\u000b\u001c\u00a0\u2003\u3000ÄéİıßſΣσςΩ\u212a\u2126ＡＺ１漢字\u0301\u0307ǅﬁ①";
        java.util.SplittableRandom rnd = new java.util.SplittableRandom(9);
        MessageDigest sha = ContentHash.newSha256();
        for (int n = 0; n < 20_000; n++) {
            StringBuilder text = new StringBuilder();
            boolean ascii = n % 2 == 0;
            for (int i = rnd.nextInt(40); i > 0; i--) {
                text.append(ascii ? (char) rnd.nextInt(128) : alphabet.charAt(rnd.nextInt(alphabet.length())));
            }
            String t = text.toString();
            assertEquals(java.text.Normalizer.normalize(t, java.text.Normalizer.Form.NFKC).toLowerCase(java.util.Locale.ROOT),
                    ContentHash.fold(t), () -> "fold of " + escaped(t));
            String normal = ContentHash.normalise(t);
            assertEquals(ContentHash.of(normal), ContentHash.ofNormal(normal, sha), () -> "ofNormal of " + escaped(normal));
        }
    }

    /**
     * {@code normalise} is its definition (fold, then runs of {@link Character#isWhitespace} and
     * {@link Character#isSpaceChar} chars to one space, trimmed) on random texts of every ASCII
     * char, the Unicode spaces, controls that are neither (U+0085) and letters; and an ASCII text
     * already in normal form (which folding leaves as it is) comes back as the same string.
     */
    @Test
    void normalise_equalsTheDefinition_onRandomTexts() {
        String unicode = "\u0085\u00a0\u1680\u180e\u2000\u2007\u200a\u200b\u2028\u2029\u202f\u205f\u3000\ufeffÄé漢Ｚ\u0301";
        java.util.SplittableRandom rnd = new java.util.SplittableRandom(11);
        for (int n = 0; n < 50_000; n++) {
            StringBuilder text = new StringBuilder();
            for (int i = rnd.nextInt(30); i > 0; i--) {
                text.append(rnd.nextInt(3) == 0 ? unicode.charAt(rnd.nextInt(unicode.length())) : (char) rnd.nextInt(128));
            }
            String t = text.toString();
            String normal = ContentHash.normalise(t);
            assertEquals(definition(t), normal, () -> "normalise of " + escaped(t));
            if (normal.chars().allMatch(c -> c < 0x80)) {
                assertSame(normal, ContentHash.normalise(normal), () -> "an ASCII normal form is kept: " + escaped(normal));
            }
        }
    }

    private static String definition(String text) {
        String folded = ContentHash.fold(text);
        StringBuilder out = new StringBuilder();
        boolean pendingSpace = false;
        for (char c : folded.toCharArray()) {
            if (Character.isWhitespace(c) || Character.isSpaceChar(c)) {
                pendingSpace = out.length() > 0;
            } else {
                if (pendingSpace) {
                    out.append(' ');
                    pendingSpace = false;
                }
                out.append(c);
            }
        }
        return out.toString();
    }

    private static String escaped(String s) {
        return s.chars().mapToObj(c -> c < 0x20 || c >= 0x7f ? String.format("\\u%04x", c) : String.valueOf((char) c))
                .collect(java.util.stream.Collectors.joining());
    }

    @Test
    void of_null_rejected() {
        assertThrows(IllegalArgumentException.class, () -> ContentHash.of(null));
    }

    /**
     * Fixed vectors: the hash every existing content-hash record (router's content index,
     * dedup-batch decisions) was made with. A change here orphans stored hashes.
     */
    @Test
    void of_fixedVectors_unchangedHashes() {
        String[][] vectors = {
            {"", "e3b0c44298fc1c149afbf4c8996fb924"},
            {"Hello World 123", "d4223bf93e202505a6a501421a88d9fa"},
            {"\u00a0A  b\r\nc \u2003", "0e9f64031fcb2bc708b531c2a2044158"},
            {"中华人民共和国 成立于 1949 年", "d2652e2d1f023d3514b199234b8a1357"},
            {"\ufb01nance \u338f \u216b", "fccfbd4bb38b9d103db568b61a34815a"},
            {"\u0130stanbul \u03a3\u0391\u03a3", "e4add4fc0ba934d212fc4439630fbeb6"},
            {"e\u0301 caf\u00e9", "47c57b2972ef4f762316b17a9f5d3e65"},
            {"emoji \ud83d\ude00 end", "503ab0f89cfe2ebe319922c847d66ae7"},
            {"hello, world", "09ca7e4eaa6e8ae9c7d2611671291848"},
        };
        MessageDigest reused = ContentHash.newSha256();
        for (String[] v : vectors) {
            assertEquals(v[1], ContentHash.of(v[0]).toString(), v[0]);
            assertEquals(v[1], ContentHash.of(v[0], reused).toString(), "reused digester: " + v[0]);
        }
    }

    @Test
    void normalise_fixedVectors_nfkcRootLowerCaseSpaces() {
        assertEquals("finance kg xii", ContentHash.normalise("\ufb01nance \u338f \u216b"));
        assertEquals("i\u0307stanbul \u03c3\u03b1\u03c2", ContentHash.normalise("\u0130stanbul \u03a3\u0391\u03a3"));
        assertEquals("\u00e9 caf\u00e9", ContentHash.normalise("e\u0301 caf\u00e9"), "NFKC composes");
        assertEquals("", ContentHash.normalise(" \u00a0\u3000\t\n"));
    }

    @Test
    void of_whitespaceOnly_isTheFirst128BitsOfSha256OfNothing() {
        ContentHash h = ContentHash.of(" \n", ContentHash.newSha256());
        assertEquals(0xe3b0c44298fc1c14L, h.high());
        assertEquals(0x9afbf4c8996fb924L, h.low());
    }

    @Test
    void normalise_widthCaseAndWhitespace_folded() {
        assertEquals("hello world 123", ContentHash.normalise(" ＨＥＬＬＯ\t\tWorld\u3000１２３\n"));
    }

    @Test
    void of_nullWithDigester_rejected() {
        assertThrows(IllegalArgumentException.class, () -> ContentHash.of(null, ContentHash.newSha256()));
    }

    @Test
    void fold_keepsWhitespace_rootLocaleLowerCase() {
        assertEquals(" i\u0307 abc\t ", ContentHash.fold(" \u0130 ＡＢＣ\t "));
    }
}
