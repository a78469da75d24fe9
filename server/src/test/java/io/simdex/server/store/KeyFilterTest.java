package io.simdex.server.store;

import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The filter never rules out a key it holds, and rules out nearly all others, at its tightest (BITS_PER_KEY bits a key). */
class KeyFilterTest {
    @Test
    void everyAddedKeyPasses_andAboutOnePercentOfOthers() {
        int keys = (1 << 18) * 64 / KeyFilter.BITS_PER_KEY; // exactly 2^18 words: no rounding up to spare bits
        KeyFilter f = new KeyFilter(keys);
        assertEquals(8L << 18, f.bytes());
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
}
