package io.simdex.server.store;

import io.simdex.fingerprint.BitFlips;
import io.simdex.fingerprint.BlockTables;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PackedBucketsTest {
    @TempDir
    Path dir;

    /** The brute force: by table, the fingerprints stored. */
    private final Map<Integer, Set<Long>> model = new HashMap<>();

    private Set<Long> held(int table) {
        return model.computeIfAbsent(table, t -> new HashSet<>());
    }

    private void assertMatchesModel(PackedBuckets b, List<long[]> probes) {
        long total = 0;
        Map<Integer, List<Long>> byBucket = new HashMap<>();
        for (int t = 0; t < BlockTables.TABLES; t++) {
            total += held(t).size();
            for (long fp : held(t)) {
                byBucket.computeIfAbsent(BlockTables.bucketKey(t, BlockTables.block(fp, t)), k -> new ArrayList<>()).add(fp);
            }
        }
        assertEquals(total, b.entries());
        MatchBuffer out = new MatchBuffer();
        for (long[] p : probes) {
            int t = (int) p[0];
            for (int k = 0; k <= 5; k++) {
                out.clear();
                b.probe(t, p[1], k, out);
                Set<Long> found = new HashSet<>();
                for (int i = 0; i < out.size(); i++) {
                    assertTrue(found.add(out.get(i)), "a fingerprint found once");
                }
                Set<Long> expected = new HashSet<>();
                for (long fp : byBucket.getOrDefault(BlockTables.bucketKey(t, BlockTables.block(p[1], t)), List.of())) {
                    if (Long.bitCount(fp ^ p[1]) <= k) {
                        expected.add(fp);
                    }
                }
                assertEquals(expected, found, "probe within " + k);
            }
        }
        for (Map.Entry<Integer, List<Long>> e : byBucket.entrySet()) {
            int t = e.getKey() >>> BlockTables.BLOCK_BITS;
            Set<Long> read = new HashSet<>();
            for (long fp : b.fingerprints(t, e.getKey() & 0xFFFF)) {
                read.add(fp);
            }
            assertEquals(new HashSet<>(e.getValue()), read, "bucket key " + e.getKey());
        }
    }

    /** Random adds (with neighbours at 1..5 bits of some) and removes, into the store and the model; returns probes. */
    private List<long[]> churn(PackedBuckets b, SplittableRandom rnd, int adds, List<long[]> stored) {
        List<long[]> probes = new ArrayList<>();
        for (int i = 0; i < adds; i++) {
            int t = rnd.nextInt(BlockTables.TABLES);
            long fp = rnd.nextLong();
            assertTrue(b.add(t, fp));
            held(t).add(fp);
            stored.add(new long[] {t, fp});
            if (i % 500 == 0) {
                probes.add(new long[] {t, fp});
                for (int bits = 1; bits <= 5; bits++) {
                    long near = BitFlips.flipOutsideBlock(fp, t, bits, rnd);
                    assertTrue(b.add(t, near));
                    held(t).add(near);
                }
            }
            if (rnd.nextInt(5) == 0) {
                long[] gone = stored.get(rnd.nextInt(stored.size()));
                assertEquals(held((int) gone[0]).remove(gone[1]), b.remove((int) gone[0], gone[1]));
            }
        }
        return probes;
    }

    @Test
    void addsRemovesAndCompactions_matchABruteForce_andSurviveReopening() {
        SplittableRandom rnd = new SplittableRandom(41);
        List<long[]> stored = new ArrayList<>();
        List<long[]> probes = new ArrayList<>();
        try (PackedBuckets b = new PackedBuckets(dir)) {
            for (int round = 0; round < 3; round++) {
                probes.addAll(churn(b, rnd, 60_000, stored));
                assertMatchesModel(b, probes);
                b.compact();
                assertEquals(0, b.deltaSize(), "everything packed");
                assertMatchesModel(b, probes);
            }
            probes.addAll(churn(b, rnd, 20_000, stored));
            // A stored fingerprint is not added twice, wherever it lies: the run or the delta.
            long[] any = stored.get(0);
            assertEquals(!held((int) any[0]).contains(any[1]), b.add((int) any[0], any[1]));
            held((int) any[0]).add(any[1]);
        }
        try (PackedBuckets b = new PackedBuckets(dir)) {
            assertMatchesModel(b, probes);
        }
    }

    @Test
    void writesDuringACompaction_areKept_andRemovesMadeMeanwhileStayRemoved() throws Exception {
        SplittableRandom rnd = new SplittableRandom(43);
        List<long[]> stored = new ArrayList<>();
        try (PackedBuckets b = new PackedBuckets(dir)) {
            List<long[]> probes = churn(b, rnd, 100_000, stored);
            AtomicBoolean done = new AtomicBoolean();
            AtomicReference<Throwable> failed = new AtomicReference<>();
            Thread compactor = new Thread(() -> {
                try {
                    b.compact();
                } catch (Throwable e) {
                    failed.set(e);
                } finally {
                    done.set(true);
                }
            });
            compactor.start();
            int writes = 0;
            // Writes until the compaction is over, at least some: removes of old and new fingerprints among them.
            while (!done.get() || writes < 20_000) {
                probes.addAll(churn(b, rnd, 1, stored));
                writes++;
            }
            compactor.join();
            if (failed.get() != null) {
                throw new AssertionError("compaction failed", failed.get());
            }
            assertMatchesModel(b, probes);
            b.compact();
            assertMatchesModel(b, probes);
        }
    }

    /**
     * Prefetches take one stripe's lock, not their buckets': racing writes, compactions (which
     * unmap the run they replace) and then a close, they must read only mapped memory (anything
     * else kills this JVM), and change no probe's answer.
     */
    @Test
    void prefetch_racingWritesCompactionsAndClose_readsOnlyMappedMemory_andChangesNoAnswer() throws Exception {
        SplittableRandom rnd = new SplittableRandom(53);
        List<long[]> stored = new ArrayList<>();
        PackedBuckets b = new PackedBuckets(dir);
        List<long[]> probes = churn(b, rnd, 20_000, stored);
        PrefetchRace prefetcher = new PrefetchRace(stored.stream().mapToLong(s -> s[1]).toArray(), 59, b::prefetch);
        for (int round = 0; round < 4 || prefetcher.prefetches() < 1000; round++) {
            probes.addAll(churn(b, rnd, 5_000, stored));
            b.compact();
        }
        probes.addAll(churn(b, rnd, 5_000, stored));
        for (long[] p : probes) {
            b.prefetch(new int[] {(int) p[0]}, new long[] {p[1]}, 1);
        }
        assertMatchesModel(b, probes);
        b.close();
        prefetcher.tableClosed();
    }

    /**
     * Tables that stop being written pack their delta once idle, though it is far from due; a
     * delta below a 64th of the tables waits for the next due one.
     */
    @Test
    void idleTables_packTheirDelta_unlessItIsASmallPartOfThem() throws Exception {
        SplittableRandom rnd = new SplittableRandom(61);
        List<long[]> stored = new ArrayList<>();
        try (PackedBuckets b = new PackedBuckets(dir)) {
            List<long[]> probes = churn(b, rnd, 5_000, stored);
            assertFalse(b.compactionDue());
            assertTrue(b.idleCompactionDue());
            PackedCompactions.afterWrite(b, TimeUnit.MILLISECONDS.toNanos(100));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (b.unpacked() > 0 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertEquals(0, b.unpacked(), "packed once idle");
            assertMatchesModel(b, probes);

            long packed = b.entries();
            long enough = 1; // the smallest delta that is a 64th of the tables it is part of
            while (enough < (packed + enough) / 64) {
                enough++;
            }
            for (int i = 0; i < enough - 1; i++) {
                long fp = rnd.nextLong();
                assertTrue(b.add(0, fp));
                held(0).add(fp);
            }
            assertFalse(b.idleCompactionDue(), "a delta of less than a 64th of the tables");
            assertTrue(b.add(0, 42L));
            held(0).add(42L);
            assertTrue(b.idleCompactionDue());
        }
    }

    @Test
    void aCompactionAKillCutShort_isFinishedWhenOpened() throws IOException {
        List<long[]> probes = new ArrayList<>();
        try (PackedBuckets b = new PackedBuckets(dir)) {
            probes.addAll(churn(b, new SplittableRandom(47), 5_000, new ArrayList<>()));
        }
        // As a kill after the freeze leaves it: the manifest names the frozen delta and a new one,
        // which took writes; a run half written.
        try (TableDelta next = new TableDelta(dir, "delta-1")) {
            long fp = 0x0123_4567_89ab_cdefL;
            next.add(1, fp);
            held(1).add(fp);
            probes.add(new long[] {1, fp});
        }
        new PackedBuckets.Manifest(1, null, List.of("delta-0", "delta-1")).write(dir);
        Files.write(dir.resolve("run-1.packed.tmp"), new byte[100]);
        try (PackedBuckets b = new PackedBuckets(dir)) {
            assertMatchesModel(b, probes);
            assertEquals(1, b.deltaSize(), "the new delta's write, the frozen one packed");
            assertTrue(Files.exists(dir.resolve("run-1.packed")));
            assertFalse(Files.exists(dir.resolve("run-1.packed.tmp")));
            assertFalse(Files.exists(dir.resolve("delta-0-0.log")));
        }
        try (PackedBuckets b = new PackedBuckets(dir)) {
            assertMatchesModel(b, probes);
        }
    }
}
