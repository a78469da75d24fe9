package io.simdex.router.index;

import io.simdex.fingerprint.Hamming;
import io.simdex.router.Corpus;
import io.simdex.router.shard.LocalShardClient;
import io.simdex.router.shard.Placement;
import io.simdex.router.shard.ShardClient;
import io.simdex.server.ShardNode;
import io.simdex.server.store.StoreSizing;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A bulk load's held bucket appends, applied by windows, against brute force over what was loaded. */
class BulkAppendsTest {
    @TempDir
    Path dir;

    private static final Corpus CORPUS = new Corpus(30_000, 300, 5);

    @Test
    void windowsOfEverySize_findExactlyWhatWasLoaded_andEachFingerprintOncePerTable() {
        try (IndexRouter index = router(dir, null)) {
            Map<String, Long> loaded = load(index, new BulkAppends(4_000, budget()), 0);
            assertMatchesBruteForce(index, loaded);
        }
    }

    @Test
    void heldDocuments_invisibleUntilApplied_andAppliedCountsAPrefix() {
        try (IndexRouter index = router(dir, null)) {
            BulkAppends held = new BulkAppends(2_500, budget());
            String[] ids = CORPUS.ids.subList(0, 1000).toArray(String[]::new);
            long[] fps = CORPUS.fps.subList(0, 1000).stream().mapToLong(Long::longValue).toArray();
            index.insert("c", Window.FOREVER, ids, fps, null, held);
            index.insert("c", Window.FOREVER, next(ids, 1000), next(fps, 1000), null, held);
            assertEquals(0, held.applied());
            assertEquals(2000, held.held());
            assertTrue(index.query("c", Window.FOREVER, new long[]{fps[0]}, 0, 0).get(0).hits().isEmpty(), "held, not yet findable");
            // The third batch would overfill the window: the first two are applied before it is held.
            index.insert("c", Window.FOREVER, next(ids, 2000), next(fps, 2000), null, held);
            assertEquals(2000, held.applied());
            assertEquals(1000, held.held());
            assertEquals(List.of(ids[0]), index.query("c", Window.FOREVER, new long[]{fps[0]}, 0, 0).get(0).hits().stream().map(IndexRouter.Hit::id).toList());
            held.apply(index);
            assertEquals(3000, held.applied());
            assertTrue(held.isEmpty());
        }
    }

    @Test
    void failedApply_keepsTheWindow_andTheRetryAddsNothingTwice() {
        AtomicInteger allowed = new AtomicInteger(Integer.MAX_VALUE);
        try (IndexRouter index = router(dir, allowed)) {
            BulkAppends held = new BulkAppends(1 << 20, budget());
            Map<String, Long> loaded = load(index, held, -1);
            long before = held.applied();
            long waiting = held.held();
            assertTrue(waiting > 1000, "a window to apply: " + waiting);
            // Five of the window's bucket calls go through, then a shard fails.
            allowed.set(5);
            assertThrows(IllegalStateException.class, () -> held.apply(index));
            assertEquals(before, held.applied());
            assertEquals(waiting, held.held());
            allowed.set(Integer.MAX_VALUE);
            held.apply(index);
            assertEquals(CORPUS.ids.size() + 300, held.applied());
            assertMatchesBruteForce(index, loaded);
        }
    }

    @Test
    void sharedBudget_spent_streamsApplyEarly_andEveryEndReturnsIt() {
        try (IndexRouter index = router(dir, null)) {
            Semaphore budget = new Semaphore(2_500);
            BulkAppends a = new BulkAppends(1 << 20, budget);
            BulkAppends b = new BulkAppends(1 << 20, budget);
            a.hold(index, "c", 0, range(0, 1000), new long[0], 1000);
            a.hold(index, "c", 0, range(1000, 2000), new long[0], 1000);
            assertEquals(500, budget.availablePermits());
            // b holds nothing and the budget cannot take its batch: it goes in at once.
            b.hold(index, "c", 0, range(10_000, 11_000), new long[0], 1000);
            assertEquals(1000, b.applied());
            assertTrue(b.isEmpty());
            assertEquals(500, budget.availablePermits());
            assertEquals(4 * 1000, bucketEntries(index), "b's batch is in the buckets, a's are still held");
            // a's next batch does not fit the budget either: a applies its window, then holds the batch.
            a.hold(index, "c", 0, range(2000, 3000), new long[0], 1000);
            assertEquals(2000, a.applied());
            assertEquals(1000, a.held());
            assertEquals(1500, budget.availablePermits());
            assertEquals(4 * 3000, bucketEntries(index));
            a.discard();
            assertEquals(2500, budget.availablePermits(), "a dropped window returns its budget");
            assertTrue(a.isEmpty());
            b.hold(index, "c", 0, range(11_000, 12_000), new long[0], 1000);
            b.apply(index);
            assertEquals(2500, budget.availablePermits(), "an applied one too");
            assertEquals(4 * 4000, bucketEntries(index), "the discarded window never reached the buckets");
        }
    }

    /**
     * Loads the corpus in batches of 1,000, then 200 of its ids again on other fingerprints
     * (each moves: its old fingerprint must leave the buckets) and 100 new ids on fingerprints
     * already loaded (checked appends). Applies the rest at the end unless {@code applyAtEnd} < 0.
     */
    private static Map<String, Long> load(IndexRouter index, BulkAppends held, int applyAtEnd) {
        Map<String, Long> loaded = new LinkedHashMap<>();
        List<String> ids = new ArrayList<>(CORPUS.ids);
        List<Long> fps = new ArrayList<>(CORPUS.fps);
        for (int i = 0; i < 200; i++) {
            ids.add(CORPUS.ids.get(i * 97));
            fps.add(CORPUS.fps.get(i * 97) ^ 0xFF00_0000_0000_00FFL);
        }
        for (int i = 0; i < 100; i++) {
            ids.add("again-" + i);
            fps.add(CORPUS.fps.get(i * 131 + 7));
        }
        for (int from = 0; from < ids.size(); from += 1000) {
            int to = Math.min(from + 1000, ids.size());
            String[] batchIds = ids.subList(from, to).toArray(String[]::new);
            long[] batchFps = fps.subList(from, to).stream().mapToLong(Long::longValue).toArray();
            index.insert("c", Window.FOREVER, batchIds, batchFps, null, held);
            for (int i = 0; i < batchIds.length; i++) {
                loaded.put(batchIds[i], batchFps[i]);
            }
        }
        if (applyAtEnd >= 0) {
            held.apply(index);
            assertEquals(ids.size(), held.applied());
        }
        return loaded;
    }

    private static void assertMatchesBruteForce(IndexRouter index, Map<String, Long> loaded) {
        long[] probes = CORPUS.probes.stream().mapToLong(Long::longValue).toArray();
        for (int k = 0; k <= 3; k++) {
            List<List<IndexRouter.Hit>> hits = index.query("c", Window.FOREVER, probes, k, 0).stream().map(IndexRouter.Nearest::hits).toList();
            for (int q = 0; q < probes.length; q++) {
                TreeSet<String> expected = new TreeSet<>();
                for (Map.Entry<String, Long> e : loaded.entrySet()) {
                    int d = Hamming.distance(e.getValue(), probes[q]);
                    if (d <= k) {
                        expected.add(e.getKey() + "/" + d);
                    }
                }
                TreeSet<String> got = new TreeSet<>();
                hits.get(q).forEach(h -> got.add(h.id() + "/" + h.distance()));
                int kk = k;
                long probe = probes[q];
                assertEquals(expected, got, () -> "probe " + Long.toHexString(probe) + " k=" + kk);
            }
        }
        Set<Long> distinct = new HashSet<>(loaded.values());
        assertEquals(4L * distinct.size(), index.stats("c", Window.FOREVER).bucketEntries(),
                "every live fingerprint once in each table: none appended twice, none left behind by a moved id");
    }

    /** Three local shards; with {@code allowed}, bucket adds fail once that many more have run. */
    private static IndexRouter router(Path dir, AtomicInteger allowed) {
        List<ShardClient> shards = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            shards.add(new LocalShardClient(new ShardNode(dir.resolve("s" + i), c -> StoreSizing.forShare(50_000, 3, 8))) {
                @Override
                public CompletableFuture<Integer> bucketAdd(String c, long gen, int table, long[] fps, boolean newFingerprints) {
                    if (allowed != null && allowed.getAndDecrement() <= 0) {
                        return CompletableFuture.failedFuture(new IllegalStateException("shard down"));
                    }
                    return super.bucketAdd(c, gen, table, fps, newFingerprints);
                }
            });
        }
        return new IndexRouter(shards, Placement.roundRobin(3));
    }

    private static Semaphore budget() {
        return new Semaphore(BulkAppends.SERVER_BUDGET);
    }

    private static long bucketEntries(IndexRouter index) {
        return index.stats("c", Window.FOREVER).bucketEntries();
    }

    /** Fingerprints fp(from) .. fp(to - 1): bucket appends only, no ids (a real stream binds those first). */
    private static long[] range(int from, int to) {
        return java.util.stream.IntStream.range(from, to).mapToLong(BulkAppendsTest::fp).toArray();
    }

    private static long fp(int i) {
        return i * 0x9E3779B97F4A7C15L;
    }

    private static String[] next(String[] ids, int offset) {
        return Arrays.stream(ids).map(id -> id + "+" + offset).toArray(String[]::new);
    }

    private static long[] next(long[] fps, int offset) {
        return Arrays.stream(fps).map(fp -> fp * 31 + offset).toArray();
    }
}
