package io.simdex.core.text;

import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The vector form of SimHash's sums gives the scalar form's counters bit for bit (same additions
 * in the same order), so a text's fingerprint does not depend on the JVM's flags or CPU. The
 * test JVMs add {@code jdk.incubator.vector}, so the vector form runs here on any CPU.
 */
class SimHashSumsTest {
    private static final Random RANDOM = new Random(5);

    @Test
    void vectorForm_givesTheScalarCounters_bitForBit() {
        SimHashSums vector = new VectorSimHashSums(true);
        SimHashSums scalar = new SimHashSums.Scalar();
        for (int round = 0; round < 300; round++) {
            int n = RANDOM.nextInt(130);
            long[] hashes = RANDOM.longs(n).toArray();
            double[] weights = new double[n];
            for (int i = 0; i < n; i++) {
                weights[i] = switch (RANDOM.nextInt(5)) {
                    case 0 -> 1.0;
                    case 1 -> RANDOM.nextDouble() * 12; // idf-like
                    case 2 -> -0.0;
                    case 3 -> RANDOM.nextDouble() * 1e-300; // subnormal sums
                    default -> RANDOM.nextGaussian() * 1e6;
                };
            }
            double[] start = new double[64];
            for (int i = 0; i < start.length; i++) {
                start[i] = RANDOM.nextBoolean() ? 0 : RANDOM.nextGaussian() * 100;
            }
            double[] byVector = start.clone();
            double[] byScalar = start.clone();
            vector.add(byVector, hashes, weights, n);
            scalar.add(byScalar, hashes, weights, n);
            assertArrayEquals(bits(byScalar), bits(byVector), "round " + round);
        }
    }

    @Test
    void scalarForm_addsWhereTheBitIsOne_andSubtractsWhereItIsZero() {
        double[] counters = new double[64];
        new SimHashSums.Scalar().add(counters, new long[]{0b101L, -1L}, new double[]{2, 0.5}, 2);
        assertEquals(2.5, counters[0]);
        assertEquals(-1.5, counters[1]);
        assertEquals(2.5, counters[2]);
        assertEquals(-1.5, counters[63]);
    }

    private static long[] bits(double[] values) {
        long[] out = new long[values.length];
        for (int i = 0; i < values.length; i++) {
            out[i] = Double.doubleToRawLongBits(values[i]);
        }
        return out;
    }
}
