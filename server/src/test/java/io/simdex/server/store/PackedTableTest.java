package io.simdex.server.store;

import io.simdex.fingerprint.BlockTables;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PackedTableTest {
    @TempDir
    Path dir;

    /** Bucket key -> its fingerprints, as the brute force keeps them. */
    private static TreeMap<Integer, List<Long>> randomBuckets(SplittableRandom rnd, int fingerprints) {
        TreeMap<Integer, List<Long>> buckets = new TreeMap<>();
        for (int i = 0; i < fingerprints; i++) {
            long fp = rnd.nextLong();
            int table = rnd.nextInt(BlockTables.TABLES);
            buckets.computeIfAbsent(BlockTables.bucketKey(table, BlockTables.block(fp, table)), k -> new ArrayList<>()).add(fp);
        }
        return buckets;
    }

    private static void write(Path file, TreeMap<Integer, List<Long>> buckets) throws IOException {
        PackedTable.write(file, out -> {
            long[] residues = new long[16];
            for (Map.Entry<Integer, List<Long>> e : buckets.entrySet()) {
                int table = e.getKey() >>> BlockTables.BLOCK_BITS;
                List<Long> fps = e.getValue();
                if (residues.length < fps.size()) {
                    residues = new long[fps.size() * 2];
                }
                for (int i = 0; i < fps.size(); i++) {
                    residues[i] = BlockTables.residue(fps.get(i), table);
                }
                out.accept(e.getKey(), residues, fps.size());
            }
        });
    }

    @Test
    void probes_matchALinearScan_withPlantedNeighboursAtDistancesZeroToFive() throws IOException {
        SplittableRandom rnd = new SplittableRandom(7);
        TreeMap<Integer, List<Long>> buckets = randomBuckets(rnd, 200_000);
        List<Long> probes = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            // A probe and neighbours at 0..5 bits in its table's residue (its block kept), in the same bucket.
            long probe = rnd.nextLong();
            int table = rnd.nextInt(BlockTables.TABLES);
            int key = BlockTables.bucketKey(table, BlockTables.block(probe, table));
            for (int d = 0; d <= 5; d++) {
                long planted = probe;
                Set<Integer> flipped = new HashSet<>();
                while (flipped.size() < d) {
                    int bit = rnd.nextInt(BlockTables.RESIDUE_BITS);
                    if (flipped.add(bit)) {
                        planted = BlockTables.fingerprint(table, BlockTables.block(probe, table),
                                BlockTables.residue(planted, table) ^ (1L << bit));
                    }
                }
                buckets.computeIfAbsent(key, k -> new ArrayList<>()).add(planted);
            }
            probes.add(probe);
            probes.add((long) table);
        }
        // The first and last bucket keys, so the directory's edges are read.
        buckets.computeIfAbsent(0, k -> new ArrayList<>()).add(0x0000_1234_5678_9abcL);
        long lastFp = BlockTables.fingerprint(BlockTables.TABLES - 1, 0xFFFF, 42);
        buckets.computeIfAbsent(BlockTables.bucketKey(BlockTables.TABLES - 1, 0xFFFF), k -> new ArrayList<>()).add(lastFp);

        Path file = dir.resolve("t.packed");
        write(file, buckets);
        try (PackedTable t = PackedTable.open(file)) {
            assertEquals(buckets.values().stream().mapToLong(List::size).sum(), t.residues());
            MatchBuffer out = new MatchBuffer();
            for (int i = 0; i < probes.size(); i += 2) {
                long probe = probes.get(i);
                int table = (int) (long) probes.get(i + 1);
                int block = BlockTables.block(probe, table);
                for (int k = 0; k <= 5; k++) {
                    out.clear();
                    t.probe(table, block, BlockTables.residue(probe, table), k, out);
                    Set<Long> found = new HashSet<>();
                    for (int j = 0; j < out.size(); j++) {
                        found.add(out.get(j));
                    }
                    Set<Long> expected = new HashSet<>();
                    for (long fp : buckets.getOrDefault(BlockTables.bucketKey(table, block), List.of())) {
                        if (Long.bitCount(fp ^ probe) <= k) {
                            expected.add(fp);
                        }
                    }
                    assertEquals(expected, found, "probe " + Long.toHexString(probe) + " table " + table + " within " + k);
                    assertTrue(expected.size() >= k + 1, "the planted neighbours at 0.." + k + " are within " + k);
                }
            }
            out.clear();
            t.probe(0, 0, BlockTables.residue(0x0000_1234_5678_9abcL, 0), 0, out);
            assertEquals(1, out.size(), "bucket key 0");
            out.clear();
            t.probe(BlockTables.TABLES - 1, 0xFFFF, 42, 0, out);
            assertEquals(lastFp, out.get(0), "the last bucket key");
        }
    }

    @Test
    void everyBucket_readsBackWhatWasWritten_andEmptyBucketsNothing() throws IOException {
        TreeMap<Integer, List<Long>> buckets = randomBuckets(new SplittableRandom(11), 100_000);
        Path file = dir.resolve("t.packed");
        write(file, buckets);
        try (PackedTable t = PackedTable.open(file)) {
            for (int key = 0; key < PackedTable.BUCKET_KEYS; key++) {
                int table = key >>> BlockTables.BLOCK_BITS;
                int block = key & 0xFFFF;
                List<Long> read = new ArrayList<>();
                t.forEach(table, block, read::add);
                List<Long> expected = new ArrayList<>(buckets.getOrDefault(key, List.of()));
                expected.sort(null);
                read.sort(null);
                assertEquals(expected, read, "bucket key " + key);
            }
        }
    }

    @Test
    void removed_areNotFound_stayRemovedWhenReopened_andAreRemovedOnce() throws IOException {
        SplittableRandom rnd = new SplittableRandom(13);
        TreeMap<Integer, List<Long>> buckets = randomBuckets(rnd, 50_000);
        Path file = dir.resolve("t.packed");
        write(file, buckets);
        List<long[]> gone = new ArrayList<>();
        try (PackedTable t = PackedTable.open(file)) {
            for (Map.Entry<Integer, List<Long>> e : buckets.entrySet()) {
                if (rnd.nextInt(3) == 0) {
                    int table = e.getKey() >>> BlockTables.BLOCK_BITS;
                    long fp = e.getValue().get(0);
                    int block = BlockTables.block(fp, table);
                    assertTrue(t.remove(table, block, BlockTables.residue(fp, table)));
                    assertFalse(t.remove(table, block, BlockTables.residue(fp, table)), "removed once");
                    gone.add(new long[] {table, fp});
                }
            }
            assertFalse(t.remove(0, 1, 123), "a residue never stored");
        }
        try (PackedTable t = PackedTable.open(file)) {
            Set<Long> goneFps = new HashSet<>();
            for (long[] g : gone) {
                int table = (int) g[0];
                long fp = g[1];
                goneFps.add(fp);
                int block = BlockTables.block(fp, table);
                assertFalse(t.contains(table, block, BlockTables.residue(fp, table)));
                MatchBuffer out = new MatchBuffer();
                t.probe(table, block, BlockTables.residue(fp, table), 0, out);
                for (int j = 0; j < out.size(); j++) {
                    assertTrue(out.get(j) != fp, "a removed residue is not a match");
                }
            }
            for (Map.Entry<Integer, List<Long>> e : buckets.entrySet()) {
                int table = e.getKey() >>> BlockTables.BLOCK_BITS;
                for (long fp : e.getValue()) {
                    int block = BlockTables.block(fp, table);
                    assertEquals(!goneFps.contains(fp), t.contains(table, block, BlockTables.residue(fp, table)));
                }
            }
        }
    }

    @Test
    void noBuckets_isAnEmptyTable() throws IOException {
        Path file = dir.resolve("empty.packed");
        write(file, new TreeMap<>());
        try (PackedTable t = PackedTable.open(file)) {
            assertEquals(0, t.residues());
            MatchBuffer out = new MatchBuffer();
            t.probe(2, 77, 5, 48, out);
            assertEquals(0, out.size());
            assertFalse(t.remove(2, 77, 5));
        }
    }

    @Test
    void bucketsOutOfOrder_areRefused_andLeaveNoFile() {
        Path file = dir.resolve("bad.packed");
        assertThrows(IllegalArgumentException.class, () -> PackedTable.write(file, out -> {
            out.accept(5, new long[] {1}, 1);
            out.accept(4, new long[] {1}, 1);
        }));
        assertFalse(Files.exists(file));
        assertFalse(Files.exists(file.resolveSibling("bad.packed.tmp")));
    }

    @Test
    void aTruncatedFile_isRefusedWithWhatIsWrong() throws IOException {
        Path file = dir.resolve("t.packed");
        write(file, randomBuckets(new SplittableRandom(17), 1_000));
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.truncate(ch.size() - 4);
        }
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> PackedTable.open(file));
        assertTrue(e.getMessage().contains("does not fit"), e.getMessage());
    }

    @Test
    void bytes_areSixAResidue_plusTheDirectory() throws IOException {
        TreeMap<Integer, List<Long>> buckets = randomBuckets(new SplittableRandom(19), 1_000_000);
        Path file = dir.resolve("t.packed");
        write(file, buckets);
        try (PackedTable t = PackedTable.open(file)) {
            long expected = PackedTable.RESIDUES_OFFSET + 6L * 1_000_000 + 2 + 4L * (buckets.size() + 1) + (1_000_000 + 63) / 64 * 8;
            assertEquals(expected, t.bytes());
        }
    }
}
