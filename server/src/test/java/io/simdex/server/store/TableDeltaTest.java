package io.simdex.server.store;

import io.simdex.fingerprint.BitFlips;
import io.simdex.fingerprint.BlockTables;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TableDeltaTest {
    @TempDir
    Path dir;

    /** What the delta should hold: by table, its fingerprints. */
    private static Set<Long> held(Map<Integer, Set<Long>> model, int table) {
        return model.computeIfAbsent(table, t -> new HashSet<>());
    }

    private static void assertHolds(TableDelta d, Map<Integer, Set<Long>> model, List<long[]> probes) {
        long total = 0;
        for (int t = 0; t < BlockTables.TABLES; t++) {
            total += held(model, t).size();
            for (long fp : held(model, t)) {
                assertTrue(d.contains(t, fp), "table " + t + " holds " + Long.toHexString(fp));
            }
        }
        assertEquals(total, d.size());
        Map<Integer, List<Long>> byBucket = new HashMap<>();
        for (int t = 0; t < BlockTables.TABLES; t++) {
            for (long fp : held(model, t)) {
                byBucket.computeIfAbsent(BlockTables.bucketKey(t, BlockTables.block(fp, t)), k -> new ArrayList<>()).add(fp);
            }
        }
        MatchBuffer out = new MatchBuffer();
        for (long[] p : probes) {
            int t = (int) p[0];
            long probe = p[1];
            int block = BlockTables.block(probe, t);
            for (int k = 0; k <= 5; k++) {
                out.clear();
                d.probe(t, block, BlockTables.residue(probe, t), k, out);
                Set<Long> found = new HashSet<>();
                for (int i = 0; i < out.size(); i++) {
                    found.add(out.get(i));
                }
                Set<Long> expected = new HashSet<>();
                for (long fp : byBucket.getOrDefault(BlockTables.bucketKey(t, block), List.of())) {
                    if (Long.bitCount(fp ^ probe) <= k) {
                        expected.add(fp);
                    }
                }
                assertEquals(expected, found, "probe within " + k);
                assertTrue(found.size() >= Math.min(k, 5) + 1 || !held(model, t).contains(probe), "the planted neighbours within " + k);
            }
        }
    }

    @Test
    void addsAndRemoves_matchABruteForce_andAreReplayedWhenReopened() {
        SplittableRandom rnd = new SplittableRandom(3);
        Map<Integer, Set<Long>> model = new HashMap<>();
        List<long[]> probes = new ArrayList<>();
        List<long[]> added = new ArrayList<>();
        try (TableDelta d = new TableDelta(dir, "delta")) {
            // More than one log file's records, with neighbours at 0..5 bits of some probes.
            for (int i = 0; i < 400_000; i++) {
                int t = rnd.nextInt(BlockTables.TABLES);
                long fp = rnd.nextLong();
                if (i % 1000 == 0) {
                    probes.add(new long[] {t, fp});
                    for (int bits = 1; bits <= 5; bits++) {
                        long near = BitFlips.flipOutsideBlock(fp, t, bits, rnd);
                        d.add(t, near);
                        held(model, t).add(near);
                    }
                }
                d.add(t, fp);
                held(model, t).add(fp);
                added.add(new long[] {t, fp});
                if (rnd.nextInt(4) == 0) {
                    long[] gone = added.get(rnd.nextInt(added.size()));
                    boolean had = held(model, (int) gone[0]).remove(gone[1]);
                    assertEquals(had, d.remove((int) gone[0], gone[1]));
                }
            }
            assertTrue(d.bytes() >= 2 * TableDelta.MAX_FILE_BYTES - TableDelta.FIRST_FILE_BYTES, "log files of every size, the largest too");
            assertHolds(d, model, probes);
        }
        try (TableDelta d = new TableDelta(dir, "delta")) {
            assertHolds(d, model, probes);
            // Appends go on after the replayed records.
            long fp = 0x1234_5678_9abc_def0L;
            d.add(2, fp);
            held(model, 2).add(fp);
        }
        try (TableDelta d = new TableDelta(dir, "delta")) {
            assertHolds(d, model, probes);
        }
    }

    @Test
    void aRecordACrashCut_isSkipped_andTheRecordsAfterItKept() throws IOException {
        try (TableDelta d = new TableDelta(dir, "delta")) {
            d.add(0, 11);
            d.add(1, 22);
            d.add(2, 33);
        }
        // The second record as a kill would leave it: fields written, check not.
        Path log = dir.resolve("delta-0.log");
        try (FileChannel ch = FileChannel.open(log, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(0, 0), TableDelta.RECORD_BYTES + 12);
        }
        try (TableDelta d = new TableDelta(dir, "delta")) {
            assertTrue(d.contains(0, 11));
            assertFalse(d.contains(1, 22), "cut: never acknowledged");
            assertTrue(d.contains(2, 33));
            assertEquals(2, d.size());
        }
    }

    @Test
    void delete_removesEveryLogFile() throws IOException {
        TableDelta d = new TableDelta(dir, "delta");
        for (int i = 0; i < 300_000; i++) {
            d.add(i & 3, i * 0x9E3779B97F4A7C15L);
        }
        d.delete();
        assertEquals(List.of(), TableDelta.logFiles(dir, "delta"));
        try (TableDelta again = new TableDelta(dir, "delta")) {
            assertEquals(0, again.size());
        }
    }

    @Test
    void aLogFileOfAnotherSize_isRefused() throws IOException {
        Files.write(dir.resolve("delta-0.log"), new byte[100]);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> new TableDelta(dir, "delta"));
        assertTrue(e.getMessage().contains("100 bytes"), e.getMessage());
    }
}
