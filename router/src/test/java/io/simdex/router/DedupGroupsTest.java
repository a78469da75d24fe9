package io.simdex.router;

import io.grpc.Context;
import io.grpc.Status;
import io.simdex.core.text.MinHashSketch;
import io.simdex.core.text.Sketcher;
import io.simdex.fingerprint.BitFlips;
import io.simdex.fingerprint.BlockTables;
import io.simdex.fingerprint.Hamming;
import io.simdex.router.index.IndexRouter;
import io.simdex.router.index.SketchRule;
import io.simdex.router.index.Window;
import io.simdex.router.shard.LocalShardClient;
import io.simdex.router.shard.Placement;
import io.simdex.router.shard.ShardClient;
import io.simdex.server.ShardNode;
import io.simdex.server.store.StoreSizing;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A Dedup of many documents, fingerprints or texts, is decided in groups, each locked, stored
 * and unlocked in turn: its decisions are still those of one document at a time in request
 * order (a brute-force replay for fingerprints; for texts, the same texts sent one per call),
 * those of concurrent requests are those of one text at a time in their sequence order, and a
 * group is stored before the next one waits for its locks.
 */
class DedupGroupsTest {
    private static final int K = 3;
    private static final String C = "c";
    /** Texts' candidates within 6 bits are duplicates when their sketches estimate 0.4 or more. */
    private static final SketchRule TEXT_RULE = new SketchRule(6, 0.4, Sketcher.DEFAULT);
    /** Second probes' candidates, as short-text fingerprints': to 12 bits (a block within one bit beyond 7). */
    private static final SketchRule SECOND_RULE = new SketchRule(BlockTables.MAX_CANDIDATE_DISTANCE, 0.4, Sketcher.DEFAULT);

    @TempDir
    Path dir;

    private final List<ShardNode> nodes = new ArrayList<>();
    private final List<ShardClient> clients = new ArrayList<>();
    private final Placement placement = Placement.roundRobin(4);
    private IndexRouter index;

    @BeforeEach
    void start() {
        index = fourShards(dir);
    }

    /** A router over four shards of this JVM (so Dedup decides in groups) kept under {@code root}. */
    private IndexRouter fourShards(Path root) {
        List<ShardClient> own = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            ShardNode node = new ShardNode(root.resolve("shard-" + i), c -> StoreSizing.forShare(50_000, 4, 8));
            nodes.add(node);
            own.add(new LocalShardClient(node));
        }
        if (clients.isEmpty()) {
            clients.addAll(own);
        }
        return new IndexRouter(own, placement);
    }

    @AfterEach
    void stop() {
        index.close();
    }

    @Test
    void dedup_requestOfManyGroups_decidesAsOneDocumentAtATimeInOrder() {
        SplittableRandom rnd = new SplittableRandom(31);
        Map<String, Long> stored = new LinkedHashMap<>();
        for (int i = 0; i < 2_000; i++) {
            stored.put("s" + i, rnd.nextLong());
        }
        index.insert(C, Window.FOREVER, stored.keySet().toArray(String[]::new), stored.values().stream().mapToLong(Long::longValue).toArray());
        List<String> storedIds = new ArrayList<>(stored.keySet());

        // 1,000 documents: new ones, copies of stored ones and of earlier ones of the request at
        // distances 0..5, the earlier one in the same group, the group before, or far back, and
        // pairs across each group boundary.
        int n = 1_000;
        String[] ids = new String[n];
        long[] fps = new long[n];
        for (int i = 0; i < n; i++) {
            ids[i] = "q" + i;
            int kind = rnd.nextInt(5);
            int d = rnd.nextInt(6);
            if (i % 64 == 0 && i > 0) {
                fps[i] = BitFlips.flip(fps[i - 1], d, rnd); // the previous group's last document
            } else if (kind == 0 && i > 0) {
                fps[i] = BitFlips.flip(fps[Math.max(0, i - 1 - rnd.nextInt(8))], d, rnd);
            } else if (kind == 1 && i > 64) {
                fps[i] = BitFlips.flip(fps[rnd.nextInt(i)], d, rnd);
            } else if (kind == 2) {
                fps[i] = BitFlips.flip(stored.get(storedIds.get(rnd.nextInt(storedIds.size()))), d, rnd);
            } else {
                fps[i] = rnd.nextLong();
            }
        }

        List<IndexRouter.Decision> decisions = index.dedup(C, Window.FOREVER, ids, fps, K);

        Map<String, Long> kept = new LinkedHashMap<>(stored);
        int insertedByReplay = 0;
        int duplicatesOfTheRequest = 0;
        for (int i = 0; i < n; i++) {
            long fp = fps[i];
            Set<String> near = kept.entrySet().stream().filter(e -> Hamming.distance(e.getValue(), fp) <= K)
                    .map(Map.Entry::getKey).collect(Collectors.toCollection(TreeSet::new));
            IndexRouter.Decision d = decisions.get(i);
            assertEquals(near.isEmpty(), d.inserted(), ids[i] + ": the replay says " + (near.isEmpty() ? "keep" : "duplicate of " + near));
            assertEquals(near, d.duplicates().stream().map(IndexRouter.Hit::id).collect(Collectors.toCollection(TreeSet::new)), ids[i]);
            assertEquals(near.size(), d.total(), ids[i]);
            for (IndexRouter.Hit h : d.duplicates()) {
                assertEquals(Hamming.distance(fp, kept.get(h.id())), h.distance(), ids[i] + " against " + h.id());
                // What it duplicates was decided before it.
                if (h.id().startsWith("q")) {
                    assertTrue(decisions.get(Integer.parseInt(h.id().substring(1))).sequence() < d.sequence(), ids[i] + " after " + h.id());
                }
            }
            if (near.isEmpty()) {
                kept.put(ids[i], fp);
                insertedByReplay++;
            } else if (near.stream().anyMatch(id -> id.startsWith("q"))) {
                duplicatesOfTheRequest++;
            }
        }
        assertTrue(duplicatesOfTheRequest > 100 && insertedByReplay > 300, duplicatesOfTheRequest + " duplicates of the request, "
                + insertedByReplay + " inserted");
        assertEquals(stored.size() + insertedByReplay, index.stats(C, Window.FOREVER).documents(), "exactly the kept documents are stored");
    }

    @Test
    void dedup_textsOfManyGroups_decidesAsOneTextAtATimeInOrder(@TempDir Path replayDir) {
        SplittableRandom rnd = new SplittableRandom(34);
        WordTexts words = new WordTexts(rnd);
        int stored = 300;
        String[] storedIds = ids("s", stored);
        String[] storedTexts = IntStream.range(0, stored).mapToObj(i -> words.text(40)).toArray(String[]::new);
        long[] storedFps = rnd.longs(stored).toArray();
        // The same stored texts in a second collection of its own shards, where the request's
        // texts are then deduplicated one per call, in order.
        IndexRouter replay = fourShards(replayDir);
        for (IndexRouter r : List.of(index, replay)) {
            r.insert(C, Window.FOREVER, storedIds, storedFps, checks(storedTexts).stored());
        }

        // 400 texts: new ones, and edits of stored texts and of earlier texts of the request
        // (same group, the group before, far back), 0 to 24 of their 40 words replaced, so
        // many lie near the sketch's threshold; every edit's fingerprint within the candidate
        // distance but not equal: a fingerprint shared by texts whose sketches disagree is judged
        // by the sketch of the last one stored (SketchRule), which the request's later texts
        // would meet at different moments in a request and one text at a time. A quarter of the
        // edits are near their source only by a second probe (as texts near the short-text
        // boundary probe with both fingerprints), their own fingerprint unrelated.
        int n = 400;
        String[] ids = ids("t", n);
        String[] texts = new String[n];
        long[] fps = new long[n];
        Map<Integer, Long> seconds = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
            int kind = rnd.nextInt(4);
            int source = kind == 0 && i > 0 ? Math.max(0, i - 1 - rnd.nextInt(8)) : kind == 1 && i > 64 ? rnd.nextInt(i) : -1;
            int s = kind == 2 ? rnd.nextInt(stored) : -1;
            if (source < 0 && s < 0) {
                texts[i] = words.text(40);
                fps[i] = rnd.nextLong();
                continue;
            }
            texts[i] = words.edit(source >= 0 ? texts[source] : storedTexts[s], rnd.nextInt(25));
            long near = BitFlips.flip(source >= 0 ? fps[source] : storedFps[s], 1 + rnd.nextInt(TEXT_RULE.candidateDistance()), rnd);
            if (rnd.nextInt(4) == 0) {
                seconds.put(i, near);
                fps[i] = rnd.nextLong();
            } else {
                fps[i] = near;
            }
        }
        IndexRouter.SecondProbes second = new IndexRouter.SecondProbes(seconds.keySet().stream().mapToInt(Integer::intValue).toArray(),
                seconds.values().stream().mapToLong(Long::longValue).toArray(), seconds.values().stream().map(fp -> SECOND_RULE).toArray(SketchRule[]::new));

        List<IndexRouter.Decision> decisions = index.dedup(C, Window.FOREVER, ids, fps, K, 0, checks(texts, second));

        int rejectedCandidates = 0;
        int duplicatesOfTheRequest = 0;
        int foundBySecondProbes = 0;
        for (int i = 0; i < n; i++) {
            IndexRouter.SecondProbes own = !seconds.containsKey(i) ? IndexRouter.SecondProbes.NONE
                    : new IndexRouter.SecondProbes(new int[]{0}, new long[]{seconds.get(i)}, new SketchRule[]{SECOND_RULE});
            IndexRouter.Decision one = replay.dedup(C, Window.FOREVER, new String[]{ids[i]}, new long[]{fps[i]}, K, 0,
                    checks(new String[]{texts[i]}, own)).get(0);
            IndexRouter.Decision d = decisions.get(i);
            assertEquals(one.inserted(), d.inserted(), ids[i] + ": alone it was " + (one.inserted() ? "kept" : "a duplicate of " + one.duplicates())
                    + ", in the request " + d.duplicates());
            assertEquals(one.duplicates(), d.duplicates(), ids[i] + ": ids, distances and similarities");
            assertEquals(one.total(), d.total(), ids[i]);
            duplicatesOfTheRequest += d.duplicates().stream().anyMatch(h -> h.id().startsWith("t")) ? 1 : 0;
            rejectedCandidates += d.inserted() && hasCandidate(i, fps, decisions, storedFps) ? 1 : 0;
            foundBySecondProbes += seconds.containsKey(i) && !d.inserted() ? 1 : 0;
        }
        replay.close();
        assertTrue(duplicatesOfTheRequest > 40, duplicatesOfTheRequest + " duplicates of the request's own texts");
        assertTrue(rejectedCandidates > 40, rejectedCandidates + " texts kept although a candidate lay within the distance");
        assertTrue(foundBySecondProbes > 10, foundBySecondProbes + " duplicates found by a second probe");
    }

    @Test
    void dedup_concurrentTextRequestsOfManyGroups_decideAsOneTextAtATimeInSequenceOrder(@TempDir Path replayDir) throws Exception {
        // Clusters of a text and 3-5 edits of it (1 to 12 of its 30 words replaced), fingerprints
        // 1 to 6 bits from the first one's, shuffled, sent by four callers in requests of 100-200.
        SplittableRandom rnd = new SplittableRandom(36);
        WordTexts words = new WordTexts(rnd);
        List<String> ids = new ArrayList<>();
        List<String> texts = new ArrayList<>();
        List<Long> fps = new ArrayList<>();
        for (int c = 0; c < 150; c++) {
            String centre = words.text(30);
            long fp = rnd.nextLong();
            for (int v = 0, n = 4 + rnd.nextInt(3); v < n; v++) {
                ids.add("c" + c + "v" + v);
                texts.add(v == 0 ? centre : words.edit(centre, 1 + rnd.nextInt(12)));
                fps.add(v == 0 ? fp : BitFlips.flip(fp, 1 + rnd.nextInt(TEXT_RULE.candidateDistance()), rnd));
            }
        }
        List<Integer> order = new ArrayList<>(IntStream.range(0, ids.size()).boxed().toList());
        Collections.shuffle(order, new Random(37));
        ConcurrentLinkedQueue<Integer> queue = new ConcurrentLinkedQueue<>(order);
        Map<Integer, IndexRouter.Decision> decided = new ConcurrentHashMap<>();
        ExecutorService callers = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> running = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                SplittableRandom sizes = new SplittableRandom(t);
                running.add(callers.submit(() -> {
                    List<Integer> request = new ArrayList<>();
                    while (true) {
                        request.clear();
                        for (int n = 100 + sizes.nextInt(101); n > 0 && !queue.isEmpty(); n--) {
                            Integer i = queue.poll();
                            if (i != null) {
                                request.add(i);
                            }
                        }
                        if (request.isEmpty()) {
                            return null;
                        }
                        List<IndexRouter.Decision> d = index.dedup(C, Window.FOREVER, request.stream().map(ids::get).toArray(String[]::new),
                                request.stream().mapToLong(fps::get).toArray(), K, 0, checks(request.stream().map(texts::get).toArray(String[]::new)));
                        for (int j = 0; j < request.size(); j++) {
                            decided.put(request.get(j), d.get(j));
                        }
                    }
                }));
            }
            for (Future<?> f : running) {
                f.get(2, TimeUnit.MINUTES);
            }
        } finally {
            callers.shutdownNow();
        }

        assertEquals(ids.size(), decided.size());
        IndexRouter replay = fourShards(replayDir);
        List<Integer> bySequence = decided.keySet().stream().sorted(Comparator.comparingLong(i -> decided.get(i).sequence())).toList();
        int duplicates = 0;
        for (int i : bySequence) {
            IndexRouter.Decision one = replay.dedup(C, Window.FOREVER, new String[]{ids.get(i)}, new long[]{fps.get(i)}, K, 0,
                    checks(new String[]{texts.get(i)})).get(0);
            IndexRouter.Decision d = decided.get(i);
            assertEquals(one.inserted(), d.inserted(), ids.get(i) + " at sequence " + d.sequence() + ": alone it was "
                    + (one.inserted() ? "kept" : "a duplicate of " + one.duplicates()) + ", concurrently " + d.duplicates());
            assertEquals(one.duplicates(), d.duplicates(), ids.get(i) + ": ids, distances and similarities");
            assertEquals(one.total(), d.total(), ids.get(i));
            duplicates += d.inserted() ? 0 : 1;
        }
        replay.close();
        assertTrue(duplicates > ids.size() / 3, duplicates + " duplicates of " + ids.size());
    }

    @Test
    void dedup_requestRepeatingADocument_decidesItWhole_theRepeatADuplicateOfTheFirst() {
        int n = 200;
        String[] ids = ids("d", n);
        long[] fps = new SplittableRandom(32).longs(n).toArray();
        ids[150] = ids[10];
        fps[150] = fps[10];

        List<IndexRouter.Decision> decisions = index.dedup(C, Window.FOREVER, ids, fps, K);

        assertTrue(decisions.get(10).inserted());
        assertFalse(decisions.get(150).inserted(), "the repeat, in another group's place, is a duplicate of the first as in one request");
        assertEquals(List.of("d10"), decisions.get(150).duplicates().stream().map(IndexRouter.Hit::id).toList());
        assertEquals(n - 1, IntStream.range(0, n).filter(i -> decisions.get(i).inserted()).count());
    }

    @Test
    void dedup_requestOfManyGroups_storesAGroupBeforeWaitingForTheNextGroupsLocks() throws Exception {
        storesAGroupBeforeWaitingForTheNextGroupsLocks(null);
    }

    @Test
    void dedup_textsOfManyGroups_storesAGroupBeforeWaitingForTheNextGroupsLocks() throws Exception {
        WordTexts words = new WordTexts(new SplittableRandom(35));
        // Their locks reach the sketch rule's distance: each block's nibble-masked keys too.
        storesAGroupBeforeWaitingForTheNextGroupsLocks(checks(IntStream.range(0, 200).mapToObj(i -> words.text(30)).toArray(String[]::new)));
    }

    /** A request of 200 (fingerprints, or texts with {@code checks}) whose third group waits for a held key. */
    private void storesAGroupBeforeWaitingForTheNextGroupsLocks(IndexRouter.TextChecks checks) throws Exception {
        int n = 200;
        String[] ids = ids("w", n);
        long[] fps = new SplittableRandom(33).longs(n).toArray();
        HeldKey held = holdThirdGroupsKey(fps, 77);

        CompletableFuture<List<IndexRouter.Decision>> dedup = CompletableFuture.supplyAsync(() -> index.dedup(C, Window.FOREVER, ids, fps, K, 0, checks));
        try {
            long[] firstGroups = Arrays.copyOf(fps, 128);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(8);
            while (storedOf(firstGroups) < 128) {
                assertTrue(System.nanoTime() < deadline, "the first two groups stored while the third waits: " + storedOf(firstGroups));
                assertFalse(dedup.isDone(), "the request waits for the held key");
                Thread.sleep(5);
            }
            assertFalse(dedup.isDone(), "the third group still waits for its key");
            assertEquals(0, storedOf(new long[]{fps[150]}), "the waiting group stored nothing");
        } finally {
            held.release();
        }
        List<IndexRouter.Decision> decisions = dedup.get(30, TimeUnit.SECONDS);
        assertTrue(decisions.stream().allMatch(IndexRouter.Decision::inserted));
        assertEquals(n, storedOf(fps));
    }

    @Test
    void dedup_callerCancelsMidRequest_groupsLeftAreNotDecided() throws Exception {
        int n = 200;
        String[] ids = ids("x", n);
        long[] fps = new SplittableRandom(33).longs(n).toArray();
        // The third group waits for the held key; the caller cancels once the first two are stored.
        HeldKey held = holdThirdGroupsKey(fps, 78);
        Context.CancellableContext call = Context.current().withCancellation();
        CompletableFuture<List<IndexRouter.Decision>> dedup = CompletableFuture.supplyAsync(() -> {
            Context previous = call.attach();
            try {
                return index.dedup(C, Window.FOREVER, ids, fps, K);
            } finally {
                call.detach(previous);
            }
        });
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(8);
            while (storedOf(Arrays.copyOf(fps, 128)) < 128) {
                assertTrue(System.nanoTime() < deadline, "the first two groups stored");
                Thread.sleep(5);
            }
            call.cancel(null);
        } finally {
            held.release();
        }
        ExecutionException e = assertThrows(ExecutionException.class, () -> dedup.get(30, TimeUnit.SECONDS));
        assertEquals(Status.Code.CANCELLED, Status.fromThrowable(e.getCause()).getCode(), e.getCause().toString());
        assertEquals(128, storedOf(Arrays.copyOf(fps, 128)));
        // The third group was decided whole or not at all, as it passed the check before the cancel or not;
        // the last one, which waited for the third to be stored after the cancel, is not decided.
        int third = storedOf(Arrays.copyOfRange(fps, 128, 192));
        assertTrue(third == 0 || third == 64, third + " of the third group stored");
        assertEquals(0, storedOf(Arrays.copyOfRange(fps, 192, n)), "the last group is not decided");
    }

    /** A bucket key held by another caller's token. */
    private record HeldKey(ShardClient owner, int key, long token) {
        void release() throws Exception {
            owner.unlockBuckets(C, new int[]{key}, token, 0).get(10, TimeUnit.SECONDS);
        }
    }

    /** Holds, for {@code token}, a bucket key of document 150 (the third group) that no document of the first two groups has. */
    private HeldKey holdThirdGroupsKey(long[] fps, long token) throws Exception {
        int key = BlockTables.bucketKey(0, BlockTables.block(fps[150], 0));
        for (int i = 0; i < 128; i++) {
            for (int t = 0; t < BlockTables.TABLES; t++) {
                assertFalse(BlockTables.bucketKey(t, BlockTables.block(fps[i], t)) == key, "the seed gives the first groups other keys");
            }
        }
        ShardClient owner = clients.get(placement.ownerOfBucket(0, BlockTables.block(fps[150], 0)));
        owner.lockBuckets(C, new int[]{key}, token, 60_000, 1_000).get(10, TimeUnit.SECONDS);
        return new HeldKey(owner, key, token);
    }

    /** Whether text i had a candidate within the sketch rule's distance: a stored text, or one of the request kept before it. */
    private static boolean hasCandidate(int i, long[] fps, List<IndexRouter.Decision> decisions, long[] storedFps) {
        int reach = TEXT_RULE.candidateDistance();
        return Arrays.stream(storedFps).anyMatch(fp -> Hamming.distance(fp, fps[i]) <= reach)
                || IntStream.range(0, i).anyMatch(j -> decisions.get(j).inserted() && Hamming.distance(fps[j], fps[i]) <= reach);
    }

    /** Every text judged by {@link #TEXT_RULE}. */
    private static IndexRouter.TextChecks checks(String[] texts) {
        return checks(texts, IndexRouter.SecondProbes.NONE);
    }

    /** Every text judged by {@link #TEXT_RULE}, and {@code second}'s probes by theirs. */
    private static IndexRouter.TextChecks checks(String[] texts, IndexRouter.SecondProbes second) {
        MinHashSketch[] sketches = Arrays.stream(texts).map(TEXT_RULE::sketch).toArray(MinHashSketch[]::new);
        SketchRule[] rules = Arrays.stream(texts).map(t -> TEXT_RULE).toArray(SketchRule[]::new);
        return new IndexRouter.TextChecks(null, new String[texts.length], rules, sketches, second);
    }

    /** {@code prefix + 0} .. {@code prefix + (n - 1)}. */
    private static String[] ids(String prefix, int n) {
        return IntStream.range(0, n).mapToObj(i -> prefix + i).toArray(String[]::new);
    }

    /** How many of {@code fps} are stored (found at distance 0). */
    private int storedOf(long[] fps) {
        return (int) index.query(C, Window.FOREVER, fps, 0, 0).stream().filter(r -> !r.hits().isEmpty()).count();
    }
}
