package io.simdex.core.text;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class SimHashTest {
    // Two hand-made term hashes over the low four bits; every other bit is 0 in both.
    private static final long BITS_3_2 = 0b1100L;
    private static final long BITS_3_1 = 0b1010L;

    @Test
    void of_equalWeights_tieAtZeroGivesBitZero() {
        // bit 0: -2 -2 = -4 -> 0; bit 1: -2 +2 = 0 -> 0 (tie); bit 2: +2 -2 = 0 -> 0 (tie);
        // bit 3: +2 +2 = 4 -> 1; bits 4..63: -4 -> 0.
        assertEquals(0b1000L, SimHash.of(new long[] {BITS_3_2, BITS_3_1}, new double[] {2, 2}));
    }

    @Test
    void of_unequalWeights_heavierTermWinsDisagreeingBits() {
        // bit 1: -3 +1 = -2 -> 0; bit 2: +3 -1 = 2 -> 1; bit 3: 4 -> 1; others negative.
        assertEquals(0b1100L, SimHash.of(new long[] {BITS_3_2, BITS_3_1}, new double[] {3, 1}));
        // Swapped weights: bit 1: -1 +3 = 2 -> 1; bit 2: +1 -3 = -2 -> 0.
        assertEquals(0b1010L, SimHash.of(new long[] {BITS_3_2, BITS_3_1}, new double[] {1, 3}));
    }

    @Test
    void of_singleTerm_isItsHash() {
        long hash = 0x8000_0000_0000_0001L | 0x0123_4567_89ab_cdefL;
        assertEquals(hash, SimHash.of(new long[] {hash}, new double[] {0.5}));
        assertEquals(Long.MIN_VALUE, SimHash.of(new long[] {Long.MIN_VALUE}, new double[] {1}));
    }

    @Test
    void of_oppositeHashesEqualWeight_allTiesGiveZero() {
        assertEquals(0L, SimHash.of(new long[] {-1L, 0L}, new double[] {1, 1}));
        assertEquals(-1L, SimHash.of(new long[] {-1L, 0L}, new double[] {1.5, 1}));
    }

    @Test
    void of_noTerms_zero() {
        assertEquals(0L, SimHash.of(new long[0], new double[0]));
    }

    @Test
    void add_repeatedTerm_sameAsWeightTimesCount() {
        SimHash repeated = new SimHash();
        for (int i = 0; i < 3; i++) {
            repeated.add(BITS_3_2, 1);
        }
        repeated.add(BITS_3_1, 2);
        assertEquals(SimHash.of(new long[] {BITS_3_2, BITS_3_1}, new double[] {3, 2}), repeated.value());
        assertEquals(0b1100L, repeated.value());
    }

    @Test
    void reset_afterUse_startsFromZero() {
        SimHash simHash = new SimHash();
        simHash.add(-1L, 5);
        simHash.reset();
        simHash.add(BITS_3_1, 1);
        assertEquals(BITS_3_1, simHash.value());
    }

    @Test
    void add_nonFiniteWeight_throws() {
        SimHash simHash = new SimHash();
        assertThrows(IllegalArgumentException.class, () -> simHash.add(1L, Double.NaN));
        assertThrows(IllegalArgumentException.class, () -> simHash.add(1L, Double.POSITIVE_INFINITY));
    }

    @Test
    void of_lengthMismatch_throws() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> SimHash.of(new long[] {1L, 2L}, new double[] {1}));
        assertEquals("hashes and weights differ in length: 2 vs 1", e.getMessage());
    }

    /**
     * Features are summed in runs of 64: across run boundaries, after value() (which does not
     * end the document) and after reset(), the fingerprint is the sign of each bit's plain sum.
     */
    @Test
    void add_acrossRuns_valueTwice_andReset_matchThePlainSums() {
        java.util.Random random = new java.util.Random(3);
        SimHash simHash = new SimHash();
        for (int n : new int[] {0, 1, 63, 64, 65, 200}) {
            simHash.reset();
            double[] sums = new double[64];
            for (int i = 0; i < n; i++) {
                long hash = random.nextLong();
                double weight = 0.5 + random.nextInt(4);
                simHash.add(hash, weight);
                for (int bit = 0; bit < 64; bit++) {
                    sums[bit] += ((hash >>> bit) & 1) == 1 ? weight : -weight;
                }
                if (i == 40) {
                    assertEquals(signs(sums), simHash.value(), "value() mid-document, n=" + n);
                }
            }
            assertEquals(signs(sums), simHash.value(), "n=" + n);
            assertEquals(signs(sums), simHash.value(), "value() again, n=" + n);
        }
    }

    private static long signs(double[] sums) {
        long fp = 0;
        for (int bit = 0; bit < 64; bit++) {
            fp |= sums[bit] > 0 ? 1L << bit : 0;
        }
        return fp;
    }
}
