package io.simdex.server.store;

import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The filter never rules out a key it holds, and rules out nearly all others, in BITS_PER_KEY bits a key. */
class KeyFilterTest {
    @Test
    void everyAddedKeyPasses_andAboutOnePercentOfOthers() {
        int keys = 1_000_000;
        KeyFilter f = new KeyFilter(keys);
        assertEquals(keys * KeyFilter.BITS_PER_KEY / 8, f.bytes(), "sized to the keys, not to a power of two");
        SplittableRandom rnd = new SplittableRandom(7);
        String[] added = new String[keys];
        for (int i = 0; i < keys; i++) {
            added[i] = "doc-" + Long.toHexString(rnd.nextLong());
            f.add(added[i].hashCode());
        }
        for (String id : added) {
            assertTrue(f.mightContain(id.hashCode()), id);
        }
        int passed = 0;
        int others = 1_000_000;
        for (int i = 0; i < others; i++) {
            if (f.mightContain(("other-" + i).hashCode())) {
                passed++;
            }
        }
        double rate = passed / (double) others;
        assertTrue(rate < 0.02, "false positives: " + rate);
    }

    @Test
    void fingerprintKeys_sequentialOrNot_spreadOverTheWords() {
        KeyFilter f = new KeyFilter(100_000);
        for (long k = 0; k < 100_000; k++) {
            f.add(Long.hashCode(k));
        }
        int passed = 0;
        for (long k = 100_000; k < 1_100_000; k++) {
            if (f.mightContain(Long.hashCode(k))) {
                passed++;
            }
        }
        assertTrue(passed < 20_000, "false positives of 1M: " + passed);
    }

    @Test
    void keysAddedByManyThreadsAtOnce_allPass_noneLostToAnotherAddOfTheSameWord() throws Exception {
        // 4 threads add 20,000 keys each to a filter of 4,096 words, at once: adds to one word
        // overlap, and the filter stays about half full, so a bit one add overwrote shows.
        int threads = 4;
        int perThread = 20_000;
        for (int round = 0; round < 10; round++) {
            KeyFilter f = new KeyFilter(4096 * 64 / KeyFilter.BITS_PER_KEY);
            java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(threads);
            Thread[] adders = new Thread[threads];
            int base = round * threads * perThread;
            for (int t = 0; t < threads; t++) {
                int from = base + t * perThread;
                adders[t] = new Thread(() -> {
                    try {
                        start.await();
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                    for (int k = from; k < from + perThread; k++) {
                        f.add(k);
                    }
                });
                adders[t].start();
            }
            for (Thread t : adders) {
                t.join();
            }
            for (int k = base; k < base + threads * perThread; k++) {
                assertTrue(f.mightContain(k), "round " + round + ": key " + k);
            }
        }
    }
}
