package io.simdex.router.index;

import io.simdex.fingerprint.BitFlips;
import io.simdex.fingerprint.Hamming;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DedupLocksTest {
    private final SplittableRandom rnd = new SplittableRandom(22);

    /** Small batches sort their keys, large ones go through a bitset: both give each key once, ascending. */
    @Test
    void bucketKeys_anyBatchSize_eachKeyOnceAscending() {
        for (int size : new int[]{1, 5, 25, 26, 100, 1000}) {
            for (int reach : new int[]{3, 7}) {
                long[] fps = new long[size];
                for (int i = 0; i < size; i++) {
                    // Some repeats and near neighbours, so that keys repeat within the batch.
                    fps[i] = i > 0 && rnd.nextInt(4) == 0 ? fps[rnd.nextInt(i)] ^ (rnd.nextBoolean() ? 0 : 1L << rnd.nextInt(64)) : rnd.nextLong();
                }
                TreeSet<Integer> expected = new TreeSet<>();
                for (long fp : fps) {
                    for (int key : DedupLocks.bucketKeys(new long[]{fp}, reach)) {
                        expected.add(key);
                    }
                }
                assertEquals(Arrays.toString(expected.stream().mapToInt(Integer::intValue).toArray()),
                        Arrays.toString(DedupLocks.bucketKeys(fps, reach)), size + " fingerprints, reach " + reach);
            }
        }
    }

    @Test
    void bucketKeys_pairWithinSeven_shareAKey_atReachSeven() {
        for (int i = 0; i < 200_000; i++) {
            long a = rnd.nextLong();
            int d = rnd.nextInt(8);
            long b = BitFlips.flip(a, d, rnd);
            assertEquals(d, Hamming.distance(a, b));
            assertTrue(intersect(DedupLocks.bucketKeys(new long[]{a}, 7), DedupLocks.bucketKeys(new long[]{b}, 7)),
                    Long.toHexString(a) + " and " + Long.toHexString(b) + " at " + d);
        }
    }

    @Test
    void bucketKeys_pairWithinThree_shareAKey_whateverEitherReach() {
        for (int i = 0; i < 100_000; i++) {
            long a = rnd.nextLong();
            long b = BitFlips.flip(a, rnd.nextInt(4), rnd);
            int reachA = rnd.nextBoolean() ? 3 : 7;
            int reachB = rnd.nextBoolean() ? 3 : 7;
            assertTrue(intersect(DedupLocks.bucketKeys(new long[]{a}, reachA), DedupLocks.bucketKeys(new long[]{b}, reachB)),
                    Long.toHexString(a) + " and " + Long.toHexString(b));
        }
    }

    @Test
    void bucketKeys_reachSeven_fiveKeysATable_includingTheExactOnes() {
        long fp = 0x0123_4567_89ab_cdefL;
        int[] exact = DedupLocks.bucketKeys(new long[]{fp}, 3);
        int[] wide = DedupLocks.bucketKeys(new long[]{fp}, 7);
        assertEquals(4, exact.length);
        assertTrue(wide.length <= 20, wide.length + " keys");
        assertTrue(Arrays.stream(exact).allMatch(k -> Arrays.binarySearch(wide, k) >= 0));
    }

    @Test
    void masked_equalExactlyWhenBlocksDifferInThatNibbleAtMost() {
        for (int i = 0; i < 100_000; i++) {
            int x = rnd.nextInt(1 << 16);
            int y = rnd.nextBoolean() ? x ^ (rnd.nextInt(16) << 4 * rnd.nextInt(4)) : rnd.nextInt(1 << 16);
            for (int j = 0; j < 4; j++) {
                boolean onlyNibbleJ = ((x ^ y) & ~(0xF << 4 * j)) == 0;
                assertEquals(onlyNibbleJ, DedupLocks.masked(x, j) == DedupLocks.masked(y, j), x + " " + y + " nibble " + j);
            }
            assertTrue(DedupLocks.masked(x, 3) < 1 << 16);
        }
        assertFalse(DedupLocks.masked(0x1234, 0) == DedupLocks.masked(0x1234, 1), "nibbles apart");
    }

    private static boolean intersect(int[] sortedA, int[] sortedB) {
        return Arrays.stream(sortedA).anyMatch(k -> Arrays.binarySearch(sortedB, k) >= 0);
    }
}
