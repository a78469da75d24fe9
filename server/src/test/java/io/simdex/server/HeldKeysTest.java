package io.simdex.server;

import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HeldKeysTest {
    private record Holder(long token, long expires, long[] inherited) {
    }

    /**
     * Random puts and removes against a HashMap: few distinct keys (long probe runs, every
     * backward shift case) and keys that differ only in high bits, as collections' salts do.
     */
    @Test
    void agreesWithAHashMap_underRandomPutsAndRemoves() {
        Random random = new Random(7);
        HeldKeys held = new HeldKeys();
        Map<Long, Holder> reference = new HashMap<>();
        long[] universe = new long[3_000];
        for (int i = 0; i < universe.length; i++) {
            universe[i] = i % 3 == 0 ? random.nextLong() : (long) (i % 17) << 40 ^ i;
        }
        for (int step = 0; step < 200_000; step++) {
            long key = universe[random.nextInt(step < 100_000 ? universe.length : 300)];
            if (random.nextInt(3) == 0) {
                held.remove(key);
                reference.remove(key);
            } else {
                long[] inherited = random.nextInt(4) == 0 ? new long[]{random.nextLong()} : new long[0];
                Holder h = new Holder(random.nextLong(), random.nextLong(), inherited);
                put(held, key, h.token(), h.expires(), h.inherited());
                reference.put(key, h);
            }
            if (step % 1_000 == 0 || step > 199_000) {
                assertEquals(reference.size(), held.size(), "step " + step);
                for (long k : universe) {
                    Holder want = reference.get(k);
                    int slot = held.find(k);
                    if (want == null) {
                        assertEquals(-1, slot, "step " + step + " key " + k);
                    } else {
                        assertTrue(slot >= 0, "step " + step + " key " + k);
                        assertEquals(want.token(), held.token(slot));
                        assertEquals(want.expires(), held.expiresAtNanos(slot));
                        assertArrayEquals(want.inherited(), held.inherited(slot));
                    }
                }
            }
        }
    }

    @Test
    void growsPastItsFirstRoom_andFindsEveryKey() {
        HeldKeys held = new HeldKeys();
        for (long k = 0; k < 10_000; k++) {
            put(held, k << 20, k, -k, new long[0]);
        }
        assertEquals(10_000, held.size());
        for (long k = 0; k < 10_000; k++) {
            int slot = held.find(k << 20);
            assertTrue(slot >= 0);
            assertEquals(k, held.token(slot));
        }
        for (long k = 0; k < 10_000; k += 2) {
            held.remove(k << 20);
        }
        assertEquals(5_000, held.size());
        for (long k = 0; k < 10_000; k++) {
            assertEquals(k % 2 == 1, held.find(k << 20) >= 0, "key " + k);
        }
    }

    /** What BucketLocks does: set the holder of a held key, add one that is not. */
    private static void put(HeldKeys held, long key, long token, long expires, long[] inherited) {
        int slot = held.find(key);
        if (slot < 0) {
            held.add(key, token, expires, inherited);
        } else {
            held.set(slot, token, expires, inherited);
        }
    }
}
