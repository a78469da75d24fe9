package io.simdex.router.shard;

import io.simdex.fingerprint.BlockTables;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

/** Fanout.splitRuns against a value-by-value split: same values per owner, in the same order. */
class FanoutSplitRunsTest {
    @Test
    void runsGoToTheirOwnersInOrder() {
        Random r = new Random(3);
        for (int shards : new int[] {1, 2, 3, 7}) {
            for (int n : new int[] {0, 1, 2, 50, 5000}) {
                int table = r.nextInt(BlockTables.TABLES);
                long[] fps = new long[n];
                for (int i = 0; i < n; i++) {
                    // few blocks, so runs are long and owners repeat across runs
                    fps[i] = (r.nextLong() & ~(0xFFFFL << (16 * table))) | ((long) r.nextInt(40) << (16 * table));
                }
                long[] grouped = BlockTables.groupByBlock(fps, n, table);
                int salt = r.nextInt();
                java.util.function.IntUnaryOperator owner = block -> Math.floorMod(block * 31 + salt, shards);
                long[][] split = Fanout.splitRuns(grouped, fp -> BlockTables.block(fp, table), owner, shards);
                assertEquals(shards, split.length);
                for (int s = 0; s < shards; s++) {
                    List<Long> expected = new ArrayList<>();
                    for (long fp : grouped) {
                        if (owner.applyAsInt(BlockTables.block(fp, table)) == s) {
                            expected.add(fp);
                        }
                    }
                    assertArrayEquals(expected.stream().mapToLong(Long::longValue).toArray(), split[s], "shards=" + shards + " n=" + n + " shard " + s);
                }
            }
        }
    }

    @Test
    void oneOwnerOfEverythingGetsTheArrayItself() {
        long[] values = {1, 1, 2, 5, 5, 5};
        long[][] split = Fanout.splitRuns(values, v -> (int) v, k -> 1, 3);
        assertSame(values, split[1]);
        assertEquals(0, split[0].length);
        assertEquals(0, split[2].length);
    }

    @Test
    void oneShardOwnsEverythingWithoutAskingAnOwner() {
        java.util.function.IntUnaryOperator asked = k -> {
            throw new AssertionError("owner asked for " + k);
        };
        long[] values = {4, 4, 9};
        assertSame(values, Fanout.splitRuns(values, v -> (int) v, asked, 1)[0]);
        for (int n : new int[] {0, 1, 2, 2000}) {
            int[][] groups = Fanout.group(n, 1, asked);
            assertEquals(1, groups.length);
            assertArrayEquals(java.util.stream.IntStream.range(0, n).toArray(), groups[0], "n=" + n);
        }
    }
}
