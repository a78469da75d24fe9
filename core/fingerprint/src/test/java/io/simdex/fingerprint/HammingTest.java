package io.simdex.fingerprint;

import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

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
}
