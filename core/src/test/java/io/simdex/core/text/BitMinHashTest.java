package io.simdex.core.text;

import io.simdex.core.text.BitMinHash.BinOrder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The b-bit MinHash fingerprint's distance tracks 32 (1 - J) of its shingle sets, bin by bin independently. */
class BitMinHashTest {
    private static final Random RANDOM = new Random(7);

    @ParameterizedTest
    @EnumSource(BinOrder.class)
    void equalTexts_equalFingerprints_andOrderOfHanCharactersIsNotAFeature(BinOrder order) {
        assertEquals(BitMinHash.of("春眠不觉晓处处闻啼鸟", order), BitMinHash.of("春眠不觉晓处处闻啼鸟", order));
        assertEquals(BitMinHash.of("春眠不觉晓", order), BitMinHash.of("晓觉不眠春", order), "each Han character is a shingle alone");
        assertNotEquals(BitMinHash.of("abcdef", order), BitMinHash.of("fedcba", order), "letters count in pairs");
    }

    /**
     * Collections keep the fingerprints they stored: these are the values of the first
     * implementation, which updated all 64 minima per shingle (64-bit products), for texts of every shingling path,
     * and long ones whose shingles fill the hash buffer several times (one of them a single
     * repeated shingle, so three groups stay empty).
     */
    @Test
    void fingerprints_stayThoseOfStoredCollections() {
        StringBuilder letters = new StringBuilder();
        for (int i = 0; i < 700; i++) {
            letters.append((char) ('a' + (i * 7) % 26)).append(i % 5 == 0 ? " " : "");
        }
        StringBuilder han = new StringBuilder();
        for (int i = 0; i < 1500; i++) {
            han.append((char) (0x4E00 + (i * 37) % 2000));
        }
        String[] texts = {"", "a", "!!! ...", "the city council met on tuesday to discuss the new budget for parks and roads",
            "深圳地铁十一号线今日正式开通运营，全长五十一公里", "mixed 文本 with 中文 and english 42", "x".repeat(450),
            "nothing but punctuation: ;;; ,,, ???", "x".repeat(3000), letters.toString(), han.toString(), ".,;!?".repeat(400)};
        long[] of = {0xFFFFFFFFFFFFFFFFL, 0xE64E5EEBFD31505EL, 0x31971CA85B719530L, 0xC873E278946C239BL, 0x22C7D0AAD366516BL,
            0xB859FF4505E3FA23L, 0xD7EECA4064D2D0CFL, 0xE5DBD335976E4E2BL, 0xD7EECA4064D2D0CFL, 0x90471C0024137AEEL,
            0xF9C5C22405289AE8L, 0x5149230277733BD9L};
        long[] partitioned = {0xFFFFFFFFFFFFFFFFL, 0xE64E5EEBFD31505EL, 0xA7133CA81F409530L, 0xD9761B78B4ABF36BL, 0x21F606BEB9E7EECAL,
            0x9C597DE5C5D2DC61L, 0xD7EECA4064D2D0CFL, 0x6B67482731585E4FL, 0xD7EECA4064D2D0CFL, 0xC0DC2AA247117C46L,
            0x9D49CC17A4DAF9DEL, 0xB94923027EF24769L};
        // With 32-bit products: the values of its first implementation, bin by bin in scalar code.
        long[] of32 = {0xFFFFFFFFFFFFFFFFL, 0x0D5E387CFD88F6ECL, 0x2B31B49B35615B70L, 0xAEA67DE90B3F0FACL, 0x77E6A2E408F7A784L,
            0xFCE23F4CFE8143CFL, 0x1D445EC8902FA2F6L, 0x566671BE93F39003L, 0x1D445EC8902FA2F6L, 0x9CD15DC63E6B3DECL,
            0x6C7B3091B1BB5DA2L, 0x696EF41768C870A4L};
        long[] partitioned32 = {0xFFFFFFFFFFFFFFFFL, 0x0D5E387CFD88F6ECL, 0x3711911AF0535B70L, 0x68BB3B88115F03A8L, 0xF57FAECD76E1B125L,
            0x5E78FB89FA807365L, 0x1D445EC8902FA2F6L, 0x166FBD83DBE700E3L, 0x1D445EC8902FA2F6L, 0x1D81101E3A183DFDL,
            0x6BA1279221220CA1L, 0xE86BF417FC49A6A4L};
        for (int i = 0; i < texts.length; i++) {
            assertEquals(of[i], BitMinHash.of(texts[i]), texts[i]);
            assertEquals(partitioned[i], BitMinHash.partitioned(texts[i]), texts[i]);
            assertEquals(of32[i], BitMinHash.of(texts[i], BinOrder.PRODUCTS_32), texts[i]);
            assertEquals(partitioned32[i], BitMinHash.partitioned(texts[i], BinOrder.PRODUCTS_32), texts[i]);
        }
    }

    @ParameterizedTest
    @EnumSource(BinOrder.class)
    void onlyLettersAndDigitsCount_andTextsWithoutThemUseEveryCharacter(BinOrder order) {
        assertEquals(BitMinHash.of("city council, tuesday!", order), BitMinHash.of("city  council tuesday", order));
        assertEquals(BitMinHash.of("citycounciltuesday", order), BitMinHash.of("city council tuesday", order), "pairs run across words");
        assertNotEquals(BitMinHash.of("a", order), BitMinHash.of("b", order), "one letter is a shingle of its own");
        assertNotEquals(BitMinHash.of("!?", order), BitMinHash.of("?!", order), "without letters, the characters are shingled");
        assertEquals(18, BitMinHash.letters("city council, tuesday!"));
    }

    /**
     * The count stops past {@code max}, and agrees with Character's letters and digits on every
     * char of the BMP, ASCII (which takes its own path) and the rest.
     */
    @Test
    void letters_countedUpToMaxPlusOne_asCharacterCountsThem() {
        assertEquals(18, BitMinHash.letters("city council, tuesday!", 18));
        assertEquals(18, BitMinHash.letters("city council, tuesday!", 17));
        assertEquals(4, BitMinHash.letters("city council, tuesday!", 3));
        assertEquals(0, BitMinHash.letters(".,;", 0));
        for (int i = 0; i <= Character.MAX_VALUE; i++) {
            char c = (char) i;
            assertEquals(Character.isLetterOrDigit(c) ? 1 : 0, BitMinHash.letters(String.valueOf(c)), () -> "U+" + Integer.toHexString(c));
        }
        ShortTextFingerprint boundary = new ShortTextFingerprint(300);
        String text = "ab ".repeat(400);
        assertEquals(601, boundary.letters(text), "counted one past the longest text that probes both");
        assertEquals(800, BitMinHash.letters(text));
        assertFalse(boundary.isShort(boundary.letters(text)));
        assertFalse(boundary.probesBoth(boundary.letters(text)));
        String atBand = "a".repeat(599);
        assertTrue(boundary.probesBoth(boundary.letters(atBand)));
        assertFalse(boundary.probesBoth(boundary.letters(atBand + "a")), "600 is 2 x 300: not within the band");
        assertTrue(boundary.probesBoth(151));
        assertFalse(boundary.probesBoth(150), "150 is 300 / 2: not within the band");
    }

    @ParameterizedTest
    @EnumSource(BinOrder.class)
    void meanDistance_followsTheShingleJaccard(BinOrder order) {
        int pairs = 400;
        long unrelated = 0;
        long twoOfTwenty = 0;
        for (int i = 0; i < pairs; i++) {
            String a = han(20);
            unrelated += Long.bitCount(BitMinHash.of(a, order) ^ BitMinHash.of(han(20), order));
            // Two of 20 distinct characters replaced: J = 18 / 22, so 32 (1 - J) = 5.8 bits expected.
            char[] b = a.toCharArray();
            b[3] = (char) (0x9FA0 + i % 5);
            b[11] = (char) (0x9FA5 + i % 5);
            twoOfTwenty += Long.bitCount(BitMinHash.of(a, order) ^ BitMinHash.of(new String(b), order));
        }
        double meanUnrelated = (double) unrelated / pairs;
        double meanEdited = (double) twoOfTwenty / pairs;
        assertTrue(Math.abs(meanUnrelated - 32) < 1.5, "unrelated texts differ in half their bits: " + meanUnrelated);
        assertTrue(Math.abs(meanEdited - 32 * (1 - 18.0 / 22)) < 1, "two of twenty characters replaced: " + meanEdited);
    }

    /**
     * Bins that chose their minima independently give a binomial distance: its variance is
     * 64 p (1 - p) with p = (1 - J) / 2. Bins that follow each other (a weak hash family)
     * would spread it wider.
     */
    @ParameterizedTest
    @EnumSource(BinOrder.class)
    void distanceVariance_isBinomial_atEveryJaccard(BinOrder order) {
        for (int shared : new int[]{10, 30, 45}) {
            int pairs = 2_000;
            double sum = 0;
            double squares = 0;
            for (int i = 0; i < pairs; i++) {
                String common = han(shared);
                String a = common + han(50 - shared);
                String b = han(50 - shared) + common;
                int d = Long.bitCount(BitMinHash.of(a, order) ^ BitMinHash.of(b, order));
                sum += d;
                squares += (double) d * d;
            }
            double j = jaccardOfHan(shared, 50);
            double p = (1 - j) / 2;
            double mean = sum / pairs;
            double variance = squares / pairs - mean * mean;
            assertEquals(64 * p, mean, 0.6, "mean distance at J " + j);
            assertEquals(64 * p * (1 - p), variance, 64 * p * (1 - p) * 0.15, "variance at J " + j);
        }
    }

    /**
     * The partitioned fingerprint keeps a block whole when an edit leaves that block's group of
     * shingles alone. One Han character replaced changes two shingles, so at least two of the four
     * blocks stay equal, always, while every group has a shingle in both texts (a group without
     * one takes the whole text's bins, which any edit moves: about 1% of 20-character texts). Two
     * replaced (by characters the text lacks) change four, which miss some group with probability
     * 1 - 4!/4^4 = 0.91, and a group they touch still keeps its block when no changed shingle is
     * one of its bins' minima: a block is kept in 0.96 of such pairs (20,000 pairs, either bin
     * order). The unpartitioned fingerprint spreads the same edit (about 6 bits) over all four
     * blocks and keeps one equal with probability 1 - (1 - 0.909^16)^4 = 0.63.
     */
    @ParameterizedTest
    @EnumSource(BinOrder.class)
    void partitioned_keepsTheBlocksOfUntouchedGroups(BinOrder order) {
        int pairs = 400;
        int keptPartitioned = 0;
        int keptWhole = 0;
        for (int i = 0; i < pairs; i++) {
            String a = han(20);
            String replacements = han(2, a);
            char[] b = a.toCharArray();
            b[3] = replacements.charAt(0);
            String one = new String(b);
            if (BitMinHash.everyGroupHasShingles(a) && BitMinHash.everyGroupHasShingles(one)) {
                assertTrue(equalBlocks(BitMinHash.partitioned(a, order) ^ BitMinHash.partitioned(one, order)) >= 2, "one character replaced in " + a);
            }
            b[11] = replacements.charAt(1);
            String two = new String(b);
            keptPartitioned += equalBlocks(BitMinHash.partitioned(a, order) ^ BitMinHash.partitioned(two, order)) > 0 ? 1 : 0;
            keptWhole += equalBlocks(BitMinHash.of(a, order) ^ BitMinHash.of(two, order)) > 0 ? 1 : 0;
        }
        // Bounds 3.5 standard deviations of 400 pairs around the rates.
        assertEquals(0.96, (double) keptPartitioned / pairs, 0.035, "partitioned: a block kept in " + keptPartitioned + " of " + pairs);
        assertEquals(0.63, (double) keptWhole / pairs, 0.085, "unpartitioned: a block kept in " + keptWhole + " of " + pairs);
    }

    @ParameterizedTest
    @EnumSource(BinOrder.class)
    void partitioned_unrelatedTextsDifferInHalfTheirBits_andEmptyGroupsFallBackToTheWholeText(BinOrder order) {
        long unrelated = 0;
        int pairs = 400;
        for (int i = 0; i < pairs; i++) {
            unrelated += Long.bitCount(BitMinHash.partitioned(han(20), order) ^ BitMinHash.partitioned(han(20), order));
        }
        assertEquals(32, (double) unrelated / pairs, 1.5);
        // One shingle: one group holds it, the three others are empty and take the whole text's
        // bins, which are that shingle's too: the partitioned fingerprint is the plain one.
        assertEquals(BitMinHash.of("春", order), BitMinHash.partitioned("春", order));
        assertEquals(BitMinHash.partitioned("春眠不觉晓", order), BitMinHash.partitioned("晓觉不眠春", order));
    }

    private static int equalBlocks(long xor) {
        int equal = 0;
        for (int t = 0; t < 4; t++) {
            equal += ((xor >>> (16 * t)) & 0xFFFF) == 0 ? 1 : 0;
        }
        return equal;
    }

    /** Expected Jaccard of two sets of n distinct characters sharing {@code shared} (random extras rarely collide). */
    private static double jaccardOfHan(int shared, int n) {
        return (double) shared / (2 * n - shared);
    }

    /** {@code n} distinct Han characters from the first 20,000 of the unified block. */
    private static String han(int n) {
        return han(n, "");
    }

    /** As {@link #han(int)}, none of them in {@code besides}. */
    private static String han(int n, String besides) {
        StringBuilder b = new StringBuilder();
        while (b.length() < n) {
            char c = (char) (0x4E00 + RANDOM.nextInt(20_000));
            if (b.indexOf(String.valueOf(c)) < 0 && besides.indexOf(c) < 0) {
                b.append(c);
            }
        }
        return b.toString();
    }
}
