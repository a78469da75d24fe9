package io.simdex.router.index;

import io.simdex.router.shard.Fanout;
import io.simdex.router.shard.Found;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** The unary Query path's allocation-light helpers against their plain reference versions. */
class QueryPathHelpersTest {
    @Test
    void distinctPairsKeepsFirstOccurrencesInOrderOnBothPaths() {
        Random r = new Random(7);
        // Sizes on both sides of the pairwise/hashing switch (32), few distinct values so pairs repeat.
        for (int n = 0; n <= 100; n++) {
            for (int round = 0; round < 20; round++) {
                long[] fps = new long[n];
                long[] gens = new long[n];
                for (int i = 0; i < n; i++) {
                    fps[i] = r.nextInt(6) - 3;
                    gens[i] = r.nextInt(3);
                }
                LinkedHashSet<List<Long>> expected = new LinkedHashSet<>();
                for (int i = 0; i < n; i++) {
                    expected.add(List.of(fps[i], gens[i]));
                }
                Found got = FanoutQuery.distinctPairs(fps, gens);
                List<List<Long>> actual = new ArrayList<>();
                for (int i = 0; i < got.fingerprints().length; i++) {
                    actual.add(List.of(got.fingerprints()[i], got.generations()[i]));
                }
                assertEquals(new ArrayList<>(expected), actual, "n=" + n);
            }
        }
    }

    @Test
    void fanoutGroupsEveryItemOnceInOrder() {
        Random r = new Random(11);
        for (int n = 0; n <= 40; n++) {
            int shards = 1 + r.nextInt(5);
            int[] owner = r.ints(n, 0, shards).toArray();
            int[][] groups = Fanout.group(n, shards, i -> owner[i]);
            assertEquals(shards, groups.length);
            for (int s = 0; s < shards; s++) {
                int shard = s;
                int[] expected = java.util.stream.IntStream.range(0, n).filter(i -> owner[i] == shard).toArray();
                assertArrayEquals(expected, groups[s], "n=" + n + " shard " + s);
            }
        }
    }
}
