package io.simdex.core.text;

import jdk.incubator.vector.IntVector;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The 32-bit bins' vector form gives the scalar form's minima on any buffer and any run of
 * bins, so a collection's fingerprints do not depend on the JVM's flags or CPU.
 */
class BinMinima32Test {
    private static final Random RANDOM = new Random(13);

    @Test
    void vectorForm_givesTheScalarMinima() {
        BinMinima32 vector = new VectorBinMinima32(true);
        BinMinima32 scalar = new BinMinima32.Scalar();
        int[] seeds = RANDOM.ints(64).toArray();
        int[] multipliers = RANDOM.ints(64).map(m -> m | 1).toArray();
        for (int round = 0; round < 500; round++) {
            int[] hashes = RANDOM.ints(1 + RANDOM.nextInt(1100)).toArray();
            if (round % 5 == 0) {
                hashes[RANDOM.nextInt(hashes.length)] = Integer.MIN_VALUE; // products at the extremes of the signed order
                hashes[RANDOM.nextInt(hashes.length)] = seeds[16];
            }
            int from = RANDOM.nextInt(hashes.length);
            int to = from + RANDOM.nextInt(hashes.length - from + 1);
            int firstBin = 16 * RANDOM.nextInt(4);
            int bins = 16 * (1 + RANDOM.nextInt(4 - firstBin / 16));
            int minOffset = RANDOM.nextBoolean() ? 0 : 64;
            int[] start = new int[128];
            for (int i = 0; i < start.length; i++) {
                start[i] = RANDOM.nextInt(3) == 0 ? RANDOM.nextInt() : Integer.MAX_VALUE;
            }
            int[] byVector = start.clone();
            int[] byScalar = start.clone();
            vector.fold(hashes, from, to, seeds, multipliers, firstBin, bins, byVector, minOffset);
            scalar.fold(hashes, from, to, seeds, multipliers, firstBin, bins, byScalar, minOffset);
            assertArrayEquals(byScalar, byVector, "round " + round);
        }
    }

    @Test
    void scalarForm_isEachBinsMinimumOfItsOrdering() {
        int[] seeds = RANDOM.ints(64).toArray();
        int[] multipliers = RANDOM.ints(64).map(m -> m | 1).toArray();
        int[] hashes = RANDOM.ints(300).toArray();
        int[] min = new int[64];
        Arrays.fill(min, Integer.MAX_VALUE);
        new BinMinima32.Scalar().fold(hashes, 0, hashes.length, seeds, multipliers, 0, 64, min, 0);
        for (int k = 0; k < 64; k++) {
            int bin = k;
            assertEquals(Arrays.stream(hashes).map(h -> (h ^ seeds[bin]) * multipliers[bin]).min().getAsInt(), min[k], "bin " + k);
        }
    }

    /** The vector form runs with vectors of eight 32-bit lanes or more (AVX2), unless turned off. */
    @Test
    void theChosenForm_isVectorWithEightLanes_unlessTurnedOff() {
        boolean allowed = Boolean.parseBoolean(System.getProperty(VectorForms.PROPERTY, "true"));
        String expected = allowed && IntVector.SPECIES_PREFERRED.length() >= 8 ? "vector-" + IntVector.SPECIES_PREFERRED.vectorBitSize() : "scalar";
        assertEquals(expected, BinMinima32.chosen().name());
    }
}
