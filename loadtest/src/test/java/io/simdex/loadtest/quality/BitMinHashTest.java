package io.simdex.loadtest.quality;

import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The b-bit MinHash fingerprint's distance tracks 32 (1 - J) of its shingle sets. */
class BitMinHashTest {
    private static final Random RANDOM = new Random(7);

    @Test
    void equalTexts_equalFingerprints_andOrderOfHanCharactersIsNotAFeature() {
        assertEquals(BitMinHash.of("春眠不觉晓处处闻啼鸟"), BitMinHash.of("春眠不觉晓处处闻啼鸟"));
        assertEquals(BitMinHash.of("春眠不觉晓"), BitMinHash.of("晓觉不眠春"), "each Han character is a shingle alone");
        assertTrue(BitMinHash.of("abcdef") != BitMinHash.of("fedcba"), "letters count in pairs");
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
