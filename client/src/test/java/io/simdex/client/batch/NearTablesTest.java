package io.simdex.client.batch;

import io.simdex.fingerprint.BitFlips;
import io.simdex.fingerprint.BlockTables;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

class NearTablesTest {
    @Test
    void within_clusteredAndRandomFingerprints_sameAsBruteForce() {
        SplittableRandom random = new SplittableRandom(17);
        long[] fps = new long[4000];
        for (int i = 0; i < fps.length; i++) {
            // Half random, half within 0..5 bits of one of a few centres.
            fps[i] = i % 2 == 0 ? random.nextLong() : BitFlips.flip(0x5555_0000_ffff_1234L * (i % 7), random.nextInt(6), random);
        }
        NearTables tables = NearTables.of(fps, fps.length);
        int[] rankOf = permutation(tables.size(), random);

        for (int q = 0; q < 500; q++) {
            long probe = q % 2 == 0 ? fps[random.nextInt(fps.length)] : BitFlips.flip(fps[q], random.nextInt(5), random);
            int before = random.nextInt(tables.size() + 1);
            for (int k = 0; k <= BlockTables.MAX_DISTANCE; k++) {
                int[] expected = bruteForce(tables, probe, k, rankOf, before);
                assertArrayEquals(expected, tables.within(probe, k, rankOf, before, Integer.MAX_VALUE));
                assertEquals(expected.length == 0 ? -1 : expected[0], tables.nearest(probe, k, rankOf, before));
            }
        }
    }

    @Test
    void nearest_distanceFourOnePerBlock_notFound() {
        long fp = 0x0123_4567_89ab_cdefL;
        long onePerBlock = fp ^ 0x0001_0001_0001_0001L;
        NearTables tables = NearTables.of(new long[] {onePerBlock}, 1);

        assertEquals(-1, tables.nearest(fp, 3, new int[] {0}, 1));
        assertEquals(0, tables.nearest(fp ^ 0x0001_0001_0001_0000L, 3, new int[] {0}, 1), "three flips are found");
    }

    @Test
    void of_duplicates_keepsDistinctValuesSorted() {
        NearTables tables = NearTables.of(new long[] {5, -1, 5, 3, -1, 99}, 5);

        assertEquals(3, tables.size());
        assertEquals(-1L, tables.fingerprint(0));
        assertEquals(1, tables.indexOf(3));
        assertEquals(2, tables.indexOf(5));
    }

    /** Distinct ranks, as kept ranks are. */
    private static int[] permutation(int n, SplittableRandom random) {
        int[] p = IntStream.range(0, n).toArray();
        for (int i = n - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            int t = p[i];
            p[i] = p[j];
            p[j] = t;
        }
        return p;
    }

    private static int[] bruteForce(NearTables t, long probe, int k, int[] rankOf, int before) {
        Integer[] us = IntStream.range(0, t.size())
                .filter(u -> rankOf[u] < before && Long.bitCount(probe ^ t.fingerprint(u)) <= k)
                .boxed().toArray(Integer[]::new);
        Arrays.sort(us, (a, b) -> {
            int c = Integer.compare(Long.bitCount(probe ^ t.fingerprint(a)), Long.bitCount(probe ^ t.fingerprint(b)));
            return c != 0 ? c : Integer.compare(rankOf[a], rankOf[b]);
        });
        return Arrays.stream(us).mapToInt(Integer::intValue).toArray();
    }
}
