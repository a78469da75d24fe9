package io.simdex.core.text;

import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The b-bit MinHash fingerprint's distance tracks 32 (1 - J) of its shingle sets, bin by bin independently. */
class BitMinHashTest {
    private static final Random RANDOM = new Random(7);

    @Test
    void equalTexts_equalFingerprints_andOrderOfHanCharactersIsNotAFeature() {
        assertEquals(BitMinHash.of("春眠不觉晓处处闻啼鸟"), BitMinHash.of("春眠不觉晓处处闻啼鸟"));
        assertEquals(BitMinHash.of("春眠不觉晓"), BitMinHash.of("晓觉不眠春"), "each Han character is a shingle alone");
        assertNotEquals(BitMinHash.of("abcdef"), BitMinHash.of("fedcba"), "letters count in pairs");
    }

    @Test
    void onlyLettersAndDigitsCount_andTextsWithoutThemUseEveryCharacter() {
        assertEquals(BitMinHash.of("city council, tuesday!"), BitMinHash.of("city  council tuesday"));
        assertEquals(BitMinHash.of("citycounciltuesday"), BitMinHash.of("city council tuesday"), "pairs run across words");
        assertNotEquals(BitMinHash.of("a"), BitMinHash.of("b"), "one letter is a shingle of its own");
        assertNotEquals(BitMinHash.of("!?"), BitMinHash.of("?!"), "without letters, the characters are shingled");
        assertEquals(18, BitMinHash.letters("city council, tuesday!"));
    }

    @Test
    void meanDistance_followsTheShingleJaccard() {
        int pairs = 400;
        long unrelated = 0;
        long twoOfTwenty = 0;
        for (int i = 0; i < pairs; i++) {
            String a = han(20);
            unrelated += Long.bitCount(BitMinHash.of(a) ^ BitMinHash.of(han(20)));
            // Two of 20 distinct characters replaced: J = 18 / 22, so 32 (1 - J) = 5.8 bits expected.
            char[] b = a.toCharArray();
            b[3] = (char) (0x9FA0 + i % 5);
            b[11] = (char) (0x9FA5 + i % 5);
            twoOfTwenty += Long.bitCount(BitMinHash.of(a) ^ BitMinHash.of(new String(b)));
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
    @Test
    void distanceVariance_isBinomial_atEveryJaccard() {
        for (int shared : new int[]{10, 30, 45}) {
            int pairs = 2_000;
            double sum = 0;
            double squares = 0;
            for (int i = 0; i < pairs; i++) {
                String common = han(shared);
                String a = common + han(50 - shared);
                String b = han(50 - shared) + common;
                int d = Long.bitCount(BitMinHash.of(a) ^ BitMinHash.of(b));
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

    /** Expected Jaccard of two sets of n distinct characters sharing {@code shared} (random extras rarely collide). */
    private static double jaccardOfHan(int shared, int n) {
        return (double) shared / (2 * n - shared);
    }

    /** {@code n} distinct Han characters from the first 20,000 of the unified block. */
    private static String han(int n) {
        StringBuilder b = new StringBuilder();
        while (b.length() < n) {
            char c = (char) (0x4E00 + RANDOM.nextInt(20_000));
            if (b.indexOf(String.valueOf(c)) < 0) {
                b.append(c);
            }
        }
        return b.toString();
    }
}
