package io.simdex.core;

import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HashingTest {
    @Test
    void reduce_staysInRange() {
        SplittableRandom random = new SplittableRandom(5);
        for (int i = 0; i < 10_000; i++) {
            int n = 1 + random.nextInt(5000);
            int r = Hashing.reduce(random.nextLong(), n);
            assertTrue(r >= 0 && r < n);
        }
        assertEquals(4095, Hashing.reduce(-1L, 4096));
        assertEquals(0, Hashing.reduce(0L, 4096));
    }
}
