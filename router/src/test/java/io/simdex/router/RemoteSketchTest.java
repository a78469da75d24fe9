package io.simdex.router;

import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.simdex.core.text.MinHashSketch;
import io.simdex.core.text.Sketcher;
import io.simdex.fingerprint.BitFlips;
import io.simdex.router.index.IndexRouter.TextChecks;
import io.simdex.router.index.IndexRouter;
import io.simdex.router.index.SketchReads;
import io.simdex.router.index.SketchRule;
import io.simdex.router.index.Window;
import io.simdex.router.shard.Placement;
import io.simdex.router.shard.RemoteShardClient;
import io.simdex.router.shard.ReplicaSet;
import io.simdex.router.shard.ShardClient;
import io.simdex.server.ShardNode;
import io.simdex.server.ShardService;
import io.simdex.server.store.FingerprintSketch;
import io.simdex.server.store.StoreSizing;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Sketch verification over shard nodes behind their gRPC service, in replica sets of two of
 * three nodes as a cluster places them: sketches kept by fingerprint reach both replicas of
 * their key and judge Dedup's candidates.
 */
class RemoteSketchTest {
    private static final int NODES = 3;
    private static final SketchRule RULE = new SketchRule(7, 0.4, Sketcher.DEFAULT);

    @TempDir
    Path dir;

    private final List<ShardNode> nodes = new ArrayList<>();
    private final List<Server> servers = new ArrayList<>();
    private final List<RemoteShardClient> clients = new ArrayList<>();
    private final SplittableRandom rnd = new SplittableRandom(7);

    @AfterEach
    void close() {
        clients.forEach(RemoteShardClient::close);
        servers.forEach(Server::shutdownNow);
        nodes.forEach(ShardNode::close);
    }

    @Test
    void dedup_overReplicaSets_nearCopiesToSevenDuplicates_otherTextsWithinThreeKept_sketchesOnBothReplicas() throws IOException {
        Placement placement = Placement.roundRobin(NODES);
        try (IndexRouter index = new IndexRouter(replicaSets(), placement, List.copyOf(clients), 2, false)) {
            int n = 200;
            String[] ids = new String[n];
            long[] fps = new long[n];
            String[] texts = new String[n];
            for (int i = 0; i < n; i++) {
                ids[i] = "d" + i;
                fps[i] = rnd.nextLong();
                texts[i] = text(40);
            }
            assertTrue(index.dedup("c", Window.FOREVER, ids, fps, 3, 0, checks(texts)).stream().allMatch(IndexRouter.Decision::inserted));
            for (int i = 0; i < n; i++) {
                String key = FingerprintSketch.key(fps[i]);
                int group = placement.ownerOfId(key);
                for (int node : new int[]{group, (group + 1) % NODES}) {
                    assertNotNull(nodes.get(node).getTexts("c", new long[]{0}, new String[]{key})[0], "sketch of d" + i + " on node " + node);
                }
            }
            String[] near = new String[n];
            String[] other = new String[n];
            long[] nearFps = new long[n];
            long[] otherFps = new long[n];
            for (int i = 0; i < n; i++) {
                near[i] = texts[i].replaceFirst(" \\S+ ", " changed ");
                other[i] = text(40);
                nearFps[i] = BitFlips.flip(fps[i], 4 + i % 4, rnd);
                otherFps[i] = BitFlips.flip(fps[i], i % 4, rnd);
            }
            long probes = SketchReads.probes();
            long reads = SketchReads.reads();
            List<IndexRouter.Decision> d = index.dedup("c", Window.FOREVER, ids("near", n), nearFps, 3, 0, checks(near));
            assertEquals(probes + n, SketchReads.probes(), "each near copy's probe judged by its sketch, over the shards' RPCs");
            assertTrue(SketchReads.reads() - reads >= n, "at least each source's sketch read: " + (SketchReads.reads() - reads));
            List<IndexRouter.Decision> o = index.dedup("c", Window.FOREVER, ids("other", n), otherFps, 3, 0, checks(other));
            for (int i = 0; i < n; i++) {
                assertFalse(d.get(i).inserted(), "near copy of d" + i + " at " + (4 + i % 4) + " bits");
                assertEquals("d" + i, d.get(i).duplicates().get(0).id());
                assertTrue(o.get(i).inserted(), "another text " + i % 4 + " bits from d" + i);
            }
        }
    }

    /**
     * A fingerprint's sketch goes with its last document (deleted, or its id bound to another
     * fingerprint), on both replicas of its key; one that keeps a document keeps its sketch. A
     * document then given that fingerprint without a text has nothing stored, so a near copy of
     * the deleted text beyond distance 3 is not its duplicate.
     */
    @Test
    void deleteAndRebind_dropTheSketchOfAFingerprintLeftWithoutDocuments_onBothReplicas() throws IOException {
        Placement placement = Placement.roundRobin(NODES);
        try (IndexRouter index = new IndexRouter(replicaSets(), placement, List.copyOf(clients), 2, false)) {
            int n = 80;
            String[] ids = ids("d", n);
            long[] fps = new long[n];
            String[] texts = new String[n];
            for (int i = 0; i < n; i++) {
                fps[i] = rnd.nextLong();
                texts[i] = text(40);
            }
            // Document x shares d1's fingerprint, so d1's fingerprint keeps a document when d1 goes.
            String[] withShared = Arrays.copyOf(ids, n + 1);
            withShared[n] = "x";
            long[] sharedFps = Arrays.copyOf(fps, n + 1);
            sharedFps[n] = fps[1];
            String[] sharedTexts = Arrays.copyOf(texts, n + 1);
            sharedTexts[n] = texts[1];
            index.insert("c", Window.FOREVER, withShared, sharedFps, checks(sharedTexts).stored());
            List<String> deleted = new ArrayList<>();
            List<String> rebound = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                (i % 4 == 0 || i == 1 ? deleted : i % 4 == 2 ? rebound : new ArrayList<String>()).add(ids[i]);
            }
            assertEquals(deleted.size(), index.delete("c", deleted.toArray(new String[0])));
            index.insert("c", Window.FOREVER, rebound.toArray(new String[0]), rebound.stream().mapToLong(id -> rnd.nextLong()).toArray());
            for (int i = 0; i < n; i++) {
                String key = FingerprintSketch.key(fps[i]);
                int group = placement.ownerOfId(key);
                boolean kept = i % 2 == 1;
                for (int node : new int[]{group, (group + 1) % NODES}) {
                    assertEquals(kept, nodes.get(node).getTexts("c", new long[]{0}, new String[]{key})[0] != null,
                            "sketch of d" + i + "'s fingerprint on node " + node);
                }
            }
            index.insert("c", Window.FOREVER, new String[]{"fp0"}, new long[]{fps[0]});
            String near = texts[0].replaceFirst(" \\S+ ", " changed ");
            List<IndexRouter.Decision> d = index.dedup("c", Window.FOREVER, new String[]{"near0"}, new long[]{BitFlips.flip(fps[0], 5, rnd)}, 3, 0,
                    checks(new String[]{near}));
            assertTrue(d.get(0).inserted(), "a near copy of deleted d0's text 5 bits from a document given without a text");
        }
    }

    /**
     * A Delete that leaves a fingerprint without documents races an Insert that gives it one:
     * the Insert's attach, sketch and bucket adds land before the Delete's bucket removal (run
     * where the removal reaches its first shard). The Insert's document stays findable, with its
     * sketch: exactly, and as the duplicate of a near copy 5 bits away (without its sketch, a
     * document only counts within the request's distance).
     */
    @Test
    void delete_racingAnInsertOfTheSameFingerprint_leavesTheInsertedDocumentFindableWithItsSketch() throws IOException {
        deleteRacingAnInsertAt("bucketRemove", (index, x, text) -> {
            List<IndexRouter.Decision> same = index.dedup("c", Window.FOREVER, new String[]{"same"}, new long[]{x}, 3, 0, checks(new String[]{text}));
            assertFalse(same.get(0).inserted());
            assertEquals("b", same.get(0).duplicates().get(0).id());
        });
    }

    /**
     * A Delete that leaves a fingerprint without documents races an Insert that gives it one
     * between the Delete's look-up of the fingerprint's ids and its drop of the sketch (run
     * where the drop reaches its first shard): the Insert's attach and sketch land before the
     * drop. The look-up after the drop finds the Insert's document and the sketch is put back,
     * on both replicas of its key, and judges a near copy 5 bits away (dropped, the document
     * would count only within 3 bits).
     */
    @Test
    void delete_racingAnInsertBeforeItsSketchDrop_putsTheSketchBack() throws IOException {
        deleteRacingAnInsertAt("dropTexts", (index, x, text) -> {
            String key = FingerprintSketch.key(x);
            int owner = Placement.roundRobin(NODES).ownerOfId(key);
            for (int node : new int[]{owner, (owner + 1) % NODES}) {
                assertNotNull(nodes.get(node).getTexts("c", new long[]{0}, new String[]{key})[0], "b's sketch on node " + node);
            }
        });
    }

    /** What a test checks of fingerprint x, given document b with {@code text}, after the race. */
    private interface RaceCheck {
        void check(IndexRouter index, long x, String text);
    }

    /**
     * Deletes a, the one document of fingerprint x, while an Insert gives x document b with the
     * same text, run where the Delete's first call of {@code method} reaches its shard; then
     * {@code check}, and a near copy of the text 5 bits away must be found as b's duplicate,
     * judged by b's sketch.
     */
    private void deleteRacingAnInsertAt(String method, RaceCheck check) throws IOException {
        Placement placement = Placement.roundRobin(NODES);
        AtomicReference<Runnable> race = new AtomicReference<>();
        List<ShardClient> hooked = replicaSets().stream().map(s -> before(s, Set.of(method), () -> {
            Runnable r = race.getAndSet(null);
            if (r != null) {
                r.run();
            }
        })).toList();
        try (IndexRouter index = new IndexRouter(hooked, placement, List.copyOf(clients), 2, false)) {
            long x = rnd.nextLong();
            String text = text(40);
            index.insert("c", Window.FOREVER, new String[]{"a"}, new long[]{x}, checks(new String[]{text}).stored());
            race.set(() -> index.insert("c", Window.FOREVER, new String[]{"b"}, new long[]{x}, checks(new String[]{text}).stored()));
            assertEquals(1, index.delete("c", new String[]{"a"}));
            assertEquals(null, race.get(), "the insert ran inside the delete");

            check.check(index, x, text);
            String near = text.replaceFirst(" \\S+ ", " changed ");
            List<IndexRouter.Decision> d = index.dedup("c", Window.FOREVER, new String[]{"near"}, new long[]{BitFlips.flip(x, 5, rnd)}, 3, 0,
                    checks(new String[]{near}));
            assertFalse(d.get(0).inserted(), "a near copy of b's text 5 bits away: judged by b's sketch");
            assertEquals("b", d.get(0).duplicates().get(0).id());
        }
    }

    /**
     * An Insert sends a fingerprint's sketch only once the fingerprint's ids are attached, which
     * {@link #delete_racingAnInsertBeforeItsSketchDrop_putsTheSketchBack}'s look-up after the drop
     * relies on: each attach is held back until a sketch is sent (or 250 ms have passed), and
     * no sketch may be sent before every attach has completed.
     */
    @Test
    void insert_sendsTheSketchOfAFingerprintAfterItsAttach() throws IOException {
        Placement placement = Placement.roundRobin(NODES);
        CountDownLatch sketchSent = new CountDownLatch(1);
        AtomicInteger attaching = new AtomicInteger();
        List<String> early = new CopyOnWriteArrayList<>();
        List<ShardClient> watched = replicaSets().stream().map(s -> (ShardClient) Proxy.newProxyInstance(ShardClient.class.getClassLoader(),
                new Class<?>[]{ShardClient.class}, (proxy, method, args) -> {
                    if (method.getName().equals("putTexts") && Arrays.stream((String[]) args[2]).anyMatch(FingerprintSketch::isKey)) {
                        if (attaching.get() > 0) {
                            early.add(String.join(",", (String[]) args[2]));
                        }
                        sketchSent.countDown();
                    }
                    boolean attach = method.getName().equals("attachIds");
                    if (attach) {
                        attaching.incrementAndGet();
                    }
                    Object out = call(s, method, args);
                    if (!attach) {
                        return out;
                    }
                    return ((CompletableFuture<?>) out).thenApplyAsync(v -> {
                        try {
                            sketchSent.await(250, TimeUnit.MILLISECONDS);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        attaching.decrementAndGet();
                        return v;
                    });
                })).toList();
        try (IndexRouter index = new IndexRouter(watched, placement, List.copyOf(clients), 2, false)) {
            index.insert("c", Window.FOREVER, new String[]{"a", "b"}, new long[]{rnd.nextLong(), rnd.nextLong()},
                    checks(new String[]{text(40), text(40)}).stored());
            assertEquals(0, sketchSent.getCount(), "the documents' sketches were sent");
            assertEquals(List.of(), early, "sketches sent while an attach was outstanding");
        }
    }

    /**
     * A Delete that leaves a fingerprint without documents in a collection with sketches sends
     * the fingerprint's bucket removal and the two reads its sketch's drop needs (the
     * fingerprint's ids, its sketch) at once: each removal is held back until both reads are
     * sent (or 5 s have passed), and must not have waited in vain. The sketch is gone after.
     */
    @Test
    void delete_withSketches_sendsTheBucketRemovalAndTheDropsReadsTogether() throws IOException {
        Placement placement = Placement.roundRobin(NODES);
        AtomicBoolean armed = new AtomicBoolean();
        Set<String> sent = ConcurrentHashMap.newKeySet();
        CountDownLatch bothReads = new CountDownLatch(2);
        List<String> removalsBeforeTheReads = new CopyOnWriteArrayList<>();
        List<ShardClient> watched = replicaSets().stream().map(s -> (ShardClient) Proxy.newProxyInstance(ShardClient.class.getClassLoader(),
                new Class<?>[]{ShardClient.class}, (proxy, method, args) -> {
                    String name = method.getName();
                    if (armed.get() && (name.equals("resolveIds") || name.equals("getTexts")) && sent.add(name)) {
                        bothReads.countDown();
                    }
                    Object out = call(s, method, args);
                    if (!armed.get() || !name.equals("bucketRemove")) {
                        return out;
                    }
                    return ((CompletableFuture<?>) out).thenApplyAsync(v -> {
                        try {
                            if (!bothReads.await(5, TimeUnit.SECONDS)) {
                                removalsBeforeTheReads.add("table " + args[2]);
                            }
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        return v;
                    });
                })).toList();
        try (IndexRouter index = new IndexRouter(watched, placement, List.copyOf(clients), 2, false)) {
            long x = rnd.nextLong();
            index.insert("c", Window.FOREVER, new String[]{"a"}, new long[]{x}, checks(new String[]{text(40)}).stored());
            armed.set(true);
            assertEquals(1, index.delete("c", new String[]{"a"}));
            assertEquals(Set.of("resolveIds", "getTexts"), sent);
            assertEquals(List.of(), removalsBeforeTheReads, "bucket removals that completed before the drop's reads were sent");
            String key = FingerprintSketch.key(x);
            int owner = placement.ownerOfId(key);
            for (int node : new int[]{owner, (owner + 1) % NODES}) {
                assertNull(nodes.get(node).getTexts("c", new long[]{0}, new String[]{key})[0], "a's sketch on node " + node);
            }
        }
    }

    /** A collection that keeps no sketches by fingerprint has none to drop: its Delete asks for none. */
    @Test
    void delete_withoutSketches_dropsNoneAndLooksNoIdsUp() throws IOException {
        Placement placement = Placement.roundRobin(NODES);
        AtomicInteger calls = new AtomicInteger();
        Runnable count = calls::incrementAndGet;
        List<ShardClient> counted = replicaSets().stream().map(s -> before(s, Set.of("dropTexts", "resolveIds"), count)).toList();
        try (IndexRouter index = new IndexRouter(counted, placement, List.copyOf(clients), 2, false)) {
            index.insert("c", Window.FOREVER, new String[]{"a", "b"}, new long[]{rnd.nextLong(), rnd.nextLong()});
            assertEquals(1, index.delete("c", new String[]{"a"}, false));
            assertEquals(0, calls.get());
            assertEquals(1, index.delete("c", new String[]{"b"}, true));
            assertTrue(calls.get() >= 2, "a look-up and a drop: " + calls.get());
        }
    }

    /** {@code shard}, running {@code action} before each call of a method named in {@code methods}. */
    private static ShardClient before(ShardClient shard, Set<String> methods, Runnable action) {
        return (ShardClient) Proxy.newProxyInstance(ShardClient.class.getClassLoader(), new Class<?>[]{ShardClient.class},
                (proxy, method, args) -> {
                    if (methods.contains(method.getName())) {
                        action.run();
                    }
                    return call(shard, method, args);
                });
    }

    /** {@code method} of {@code shard}, throwing what it throws. */
    private static Object call(ShardClient shard, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(shard, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    private List<ShardClient> replicaSets() throws IOException {
        for (int i = 0; i < NODES; i++) {
            ShardNode node = new ShardNode(dir.resolve("n" + i), c -> StoreSizing.forShare(50_000, NODES, 8));
            nodes.add(node);
            String name = InProcessServerBuilder.generateName();
            servers.add(InProcessServerBuilder.forName(name).addService(new ShardService(node)).build().start());
            ManagedChannel channel = InProcessChannelBuilder.forName(name).build();
            clients.add(new RemoteShardClient(channel));
        }
        List<ShardClient> groups = new ArrayList<>();
        for (int g = 0; g < NODES; g++) {
            int a = g;
            int b = (g + 1) % NODES;
            groups.add(new ReplicaSet(List.of(clients.get(a), clients.get(b)), new int[]{a, b}, List.of(), new int[0], 2, x -> true,
                    x -> true, 0, 0, node -> CompletableFuture.completedFuture(null)));
        }
        return groups;
    }

    private static TextChecks checks(String[] texts) {
        MinHashSketch[] sketches = new MinHashSketch[texts.length];
        for (int i = 0; i < texts.length; i++) {
            sketches[i] = RULE.sketch(texts[i]);
        }
        return new TextChecks(null, new String[texts.length], RULE, sketches);
    }

    private static String[] ids(String prefix, int n) {
        String[] out = new String[n];
        for (int i = 0; i < n; i++) {
            out[i] = prefix + i;
        }
        return out;
    }

    private String text(int words) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < words; i++) {
            b.append(i == 0 ? "" : " ");
            for (int k = 3 + rnd.nextInt(6); k > 0; k--) {
                b.append((char) ('a' + rnd.nextInt(26)));
            }
        }
        return b.toString();
    }
}
