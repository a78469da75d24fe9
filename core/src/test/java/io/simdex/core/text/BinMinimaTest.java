package io.simdex.core.text;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The vector form of the bins' minima gives the scalar form's minima on any buffer and any run
 * of bins, so a collection's fingerprints do not depend on the JVM's flags or CPU. The test
 * JVMs add {@code jdk.incubator.vector} (the root pom's argLine), so the vector form runs here
 * on any CPU (slowly without 512-bit vectors).
 */
class BinMinimaTest {
    private static final Random RANDOM = new Random(11);

    @Test
    void vectorForm_givesTheScalarMinima() {
        BinMinima vector = new VectorBinMinima(true);
        BinMinima scalar = new BinMinima.Scalar();
        long[] seeds = RANDOM.longs(64).toArray();
        long[] multipliers = RANDOM.longs(64).map(m -> m | 1).toArray();
        for (int round = 0; round < 500; round++) {
            long[] hashes = RANDOM.longs(1 + RANDOM.nextInt(1100)).toArray();
            if (round % 5 == 0) {
                hashes[RANDOM.nextInt(hashes.length)] = Long.MIN_VALUE; // products at the extremes of the signed order
                hashes[RANDOM.nextInt(hashes.length)] = seeds[16];
            }
            int from = RANDOM.nextInt(hashes.length);
            int to = from + RANDOM.nextInt(hashes.length - from + 1);
            int firstBin = 16 * RANDOM.nextInt(4);
            int bins = 16 * (1 + RANDOM.nextInt(4 - firstBin / 16));
            int minOffset = RANDOM.nextBoolean() ? 0 : 64;
            long[] start = new long[128];
            for (int i = 0; i < start.length; i++) {
                start[i] = RANDOM.nextInt(3) == 0 ? RANDOM.nextLong() : Long.MAX_VALUE;
            }
            long[] byVector = start.clone();
            long[] byScalar = start.clone();
            vector.fold(hashes, from, to, seeds, multipliers, firstBin, bins, byVector, minOffset);
            scalar.fold(hashes, from, to, seeds, multipliers, firstBin, bins, byScalar, minOffset);
            assertArrayEquals(byScalar, byVector, "round " + round);
        }
    }

    @Test
    void scalarForm_isEachBinsMinimumOfItsOrdering() {
        long[] seeds = RANDOM.longs(64).toArray();
        long[] multipliers = RANDOM.longs(64).map(m -> m | 1).toArray();
        long[] hashes = RANDOM.longs(300).toArray();
        long[] min = new long[64];
        Arrays.fill(min, Long.MAX_VALUE);
        new BinMinima.Scalar().fold(hashes, 0, hashes.length, seeds, multipliers, 0, 64, min, 0);
        for (int k = 0; k < 64; k++) {
            int bin = k;
            assertEquals(Arrays.stream(hashes).map(h -> (h ^ seeds[bin]) * multipliers[bin]).min().getAsLong(), min[k], "bin " + k);
        }
    }

    @Test
    void theChosenForm_isVectorOnlyWithEightLanes_unlessTurnedOff() {
        assertEquals(VectorFormsTest.expectedForm(), BinMinima.chosen().name());
    }
}
