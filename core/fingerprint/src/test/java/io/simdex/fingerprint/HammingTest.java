package io.simdex.fingerprint;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Comparator;
import java.util.SplittableRandom;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

class HammingTest {
    @Test
    void distance_equalValues_zero() {
        assertEquals(0, Hamming.distance(0L, 0L));
        assertEquals(0, Hamming.distance(-1L, -1L));
    }

    @Test
    void distance_complement_sixtyFour() {
        assertEquals(64, Hamming.distance(0L, -1L));
        assertEquals(64, Hamming.distance(0x0123_4567_89ab_cdefL, ~0x0123_4567_89ab_cdefL));
    }

    @Test
    void distance_signBit_countsOne() {
        assertEquals(1, Hamming.distance(Long.MIN_VALUE, 0L));
        assertEquals(1, Hamming.distance(Long.MAX_VALUE, -1L));
    }

    @Test
    void distance_randomPairs_symmetric() {
        SplittableRandom random = new SplittableRandom(8);
        for (int i = 0; i < 1000; i++) {
            long a = random.nextLong();
            long b = random.nextLong();
            assertEquals(Hamming.distance(a, b), Hamming.distance(b, a));
        }
    }

    @Test
    void nearest_matchesAStableSortByDistance_atEveryCut() {
        SplittableRandom random = new SplittableRandom(9);
        long probe = random.nextLong();
        // Many ties: 300 fingerprints at distances 0..8, in a buffer longer than the 300 used.
        long[] fps = new long[400];
        for (int i = 0; i < 300; i++) {
            fps[i] = BitFlips.flip(probe, random.nextInt(9), random);
        }
        for (int max : new int[] {0, 1, 7, 100, 299, 300, 350}) {
            int[] expected = IntStream.range(0, 300).boxed()
                    .sorted(Comparator.comparingInt(i -> Hamming.distance(fps[i], probe)))
                    .limit(max).mapToInt(Integer::intValue).sorted().toArray();
            assertArrayEquals(expected, Hamming.nearest(probe, fps, 300, max), "max " + max);
        }
        assertArrayEquals(new int[0], Hamming.nearest(probe, fps, 0, 5));
        assertEquals(3, Arrays.stream(Hamming.nearest(probe, new long[] {probe, ~probe, probe ^ 1, probe ^ 3}, 4, 3)).max().orElseThrow());
    }
}
