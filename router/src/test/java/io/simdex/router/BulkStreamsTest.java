package io.simdex.router;

import io.grpc.ForwardingServerCallListener;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.simdex.proto.v1.ShardBucketAddManyRequest;
import io.simdex.proto.v1.ShardBucketPart;
import io.simdex.proto.v1.ShardBucketWindow;
import io.simdex.proto.v1.ShardBucketWindowAck;
import io.simdex.proto.v1.ShardGrpc;
import io.simdex.router.index.BulkAppends;
import io.simdex.router.index.IndexRouter;
import io.simdex.router.index.Window;
import io.simdex.router.shard.BucketStreams;
import io.simdex.router.shard.Found;
import io.simdex.router.shard.Placement;
import io.simdex.router.shard.RemoteShardClient;
import io.simdex.router.shard.ReplicaSet;
import io.simdex.router.shard.ShardClient;
import io.simdex.router.shard.ShardEpochs;
import io.simdex.server.NodeState;
import io.simdex.server.ShardNode;
import io.simdex.server.ShardService;
import io.simdex.server.store.StoreSizing;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A bulk load's bucket windows over real gRPC nodes (BucketAddStream): one stream per node for
 * the load, at most {@link BucketStreams#MAX_UNACKED} windows unacknowledged on each, and the
 * failover of the unary writes; every loaded document is found as by a brute-force scan.
 */
class BulkStreamsTest {
    private static final int NODES = 3;
    private static final Corpus CORPUS = new Corpus(9_000, 150, 21);

    @TempDir
    Path dir;

    private final List<ShardNode> nodes = new ArrayList<>();
    private final List<Server> servers = new ArrayList<>();
    private final List<ManagedChannel> channels = new ArrayList<>();
    /** Calls the nodes started, by bare method name. */
    private final ConcurrentHashMap<String, LongAdder> calls = new ConcurrentHashMap<>();
    /** Windows node 0 has been handed. */
    private final LongAdder windowsAtNode0 = new LongAdder();
    /** Node 0 takes its windows only once this opens. */
    private volatile CountDownLatch node0Gate = new CountDownLatch(0);
    /** Node 0 takes each window this long after it arrives: a node slow to apply it. */
    private volatile long node0DelayMillis;

    @AfterEach
    void close() {
        channels.forEach(ManagedChannel::shutdownNow);
        servers.forEach(Server::shutdownNow);
        nodes.forEach(ShardNode::close);
    }

    /** Node i behind its shard service (fenced by {@code state}), as a client of its own channel. */
    private RemoteShardClient node(int i, NodeState state) throws IOException {
        ShardNode node = new ShardNode(dir.resolve("n" + i), c -> StoreSizing.forShare(50_000, NODES, 8));
        nodes.add(node);
        ServerServiceDefinition service = ServerInterceptors.intercept(ShardService.withFence(node, state), new Watch(i));
        String name = InProcessServerBuilder.generateName();
        servers.add(InProcessServerBuilder.forName(name).addService(service).build().start());
        ManagedChannel channel = InProcessChannelBuilder.forName(name).build();
        channels.add(channel);
        return new RemoteShardClient(channel);
    }

    /** Counts calls; holds node 0's windows at its gate. */
    private final class Watch implements ServerInterceptor {
        private final int node;

        Watch(int node) {
            this.node = node;
        }

        @Override
        public <Q, A> ServerCall.Listener<Q> interceptCall(ServerCall<Q, A> call, Metadata headers, ServerCallHandler<Q, A> next) {
            String method = call.getMethodDescriptor().getBareMethodName();
            calls.computeIfAbsent(method, m -> new LongAdder()).increment();
            ServerCall.Listener<Q> listener = next.startCall(call, headers);
            if (node != 0 || !method.equals("BucketAddStream")) {
                return listener;
            }
            return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(listener) {
                @Override
                public void onMessage(Q message) {
                    windowsAtNode0.increment();
                    try {
                        node0Gate.await();
                        TimeUnit.MILLISECONDS.sleep(node0DelayMillis);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    super.onMessage(message);
                }
            };
        }
    }

    /** R=2 over 3 nodes, write quorum 1, as PartitionMap.initial places them; reads skip {@code down}, marks go to {@code marked}. */
    private IndexRouter replicated(Set<Integer> down, Set<Integer> marked) throws IOException {
        return replicated(down, marked, 0);
    }

    /** As {@link #replicated(Set, Set)}, each write to a node bounded by {@code writeTimeoutMillis} (0: none). */
    private IndexRouter replicated(Set<Integer> down, Set<Integer> marked, long writeTimeoutMillis) throws IOException {
        List<RemoteShardClient> clients = new ArrayList<>();
        for (int i = 0; i < NODES; i++) {
            RemoteShardClient c = node(i, NodeState.standalone());
            clients.add(writeTimeoutMillis > 0 ? c.atEpoch(0, 0, writeTimeoutMillis) : c);
        }
        List<ShardClient> groups = new ArrayList<>();
        for (int g = 0; g < NODES; g++) {
            int a = g;
            int b = (g + 1) % NODES;
            groups.add(new ReplicaSet(List.of(clients.get(a), clients.get(b)), new int[]{a, b}, List.of(), new int[0], 1, n -> true,
                    n -> !down.contains(n), 0, 0, n -> {
                        marked.add(n);
                        return CompletableFuture.completedFuture(null);
                    }));
        }
        return new IndexRouter(groups, Placement.roundRobin(NODES), clients, 2, false);
    }

    /** Documents [from, to) of the corpus, in batches of 1,000, with their bucket appends held. */
    private static void load(IndexRouter index, BulkAppends held, int from, int to) {
        load(index, held, CORPUS, from, to);
    }

    private static void load(IndexRouter index, BulkAppends held, Corpus corpus, int from, int to) {
        for (int b = from; b < to; b += 1_000) {
            int e = Math.min(to, b + 1_000);
            String[] ids = corpus.ids.subList(b, e).toArray(String[]::new);
            long[] fps = corpus.fps.subList(b, e).stream().mapToLong(Long::longValue).toArray();
            index.insert("c", Window.FOREVER, ids, fps, null, held);
        }
    }

    /** Every probe at distances 0..3 finds exactly what a scan of the whole corpus finds. */
    private static void assertAllFound(IndexRouter index) {
        assertAllFound(index, CORPUS);
    }

    private static void assertAllFound(IndexRouter index, Corpus corpus) {
        long[] probes = corpus.probes.stream().mapToLong(Long::longValue).toArray();
        for (int k = 0; k <= 3; k++) {
            List<IndexRouter.Nearest> found = index.query("c", Window.FOREVER, probes, k, 0);
            for (int q = 0; q < probes.length; q++) {
                TreeSet<String> got = new TreeSet<>();
                found.get(q).hits().forEach(h -> got.add(h.id() + "/" + Long.toHexString(h.fingerprint()) + "/" + h.distance()));
                assertEquals(corpus.within(probes[q], k, Set.of()), got, "probe " + q + " at distance " + k);
            }
        }
    }

    private static BulkAppends held(int window, BucketStreams streams) {
        return new BulkAppends(window, new Semaphore(BulkAppends.SERVER_BUDGET), streams);
    }

    @Test
    void bulkLoad_manyWindows_oneStreamPerNode_andNoUnaryBucketAdds() throws IOException {
        BucketStreams streams = new BucketStreams();
        try (IndexRouter index = replicated(Set.of(), ConcurrentHashMap.newKeySet()); BulkAppends held = held(2_500, streams)) {
            load(index, held, 0, CORPUS.ids.size());
            held.apply(index);
            assertEquals(CORPUS.ids.size(), held.applied());
            assertEquals(NODES, calls.get("BucketAddStream").sum(), "one stream per node for the whole load");
            assertNull(calls.get("BucketAddMany"), "no window went as a unary call");
            assertTrue(windowsAtNode0.sum() >= 4, "node 0 got each window on its one stream: " + windowsAtNode0.sum());
            assertEquals(NODES, streams.opened());
            assertAllFound(index);
        }
    }

    @Test
    void slowNode_senderWaits_withAtMostMaxUnackedWindowsOnIt() throws Exception {
        node0Gate = new CountDownLatch(1);
        BucketStreams streams = new BucketStreams();
        RemoteShardClient only = node(0, NodeState.standalone());
        try (IndexRouter index = new IndexRouter(List.of(only), Placement.roundRobin(1), List.of(only), 1, false);
             BulkAppends held = held(1_000, streams)) {
            // Windows of one batch each: the loader would be done at once if windows were buffered for the node.
            CompletableFuture<Void> loader = CompletableFuture.runAsync(() -> load(index, held, 0, CORPUS.ids.size()));
            await(() -> streams.waits() > 0 || loader.isDone(), "the loader waits for the node");
            assertFalse(loader.isDone(), "a node that takes no window holds the loader back");
            assertEquals(BucketStreams.MAX_UNACKED, streams.mostUnacked());
            await(() -> windowsAtNode0.sum() > 0, "the node has its first window");
            assertEquals(1, windowsAtNode0.sum(), "the node holds one window; the other waits in flow control");
            node0Gate.countDown();
            loader.get(60, TimeUnit.SECONDS);
            held.apply(index);
            assertEquals(CORPUS.ids.size(), held.applied());
            assertEquals(BucketStreams.MAX_UNACKED, streams.mostUnacked(), "never more unacknowledged");
            assertTrue(windowsAtNode0.sum() >= 9, "a window per batch: " + windowsAtNode0.sum());
            assertEquals(1, calls.get("BucketAddStream").sum());
            assertAllFound(index);
        }
    }

    @Test
    void nodeKilledMidLoad_itIsMarkedBehind_andEveryAcknowledgedDocumentIsFound() throws IOException {
        Set<Integer> down = ConcurrentHashMap.newKeySet();
        Set<Integer> marked = ConcurrentHashMap.newKeySet();
        try (IndexRouter index = replicated(down, marked); BulkAppends held = held(2_000, new BucketStreams())) {
            int half = 5_000;
            load(index, held, 0, half); // windows in flight on the streams as the node dies
            assertTrue(marked.isEmpty());
            servers.get(2).shutdownNow();
            down.add(2);
            load(index, held, half, CORPUS.ids.size());
            held.apply(index);
            assertEquals(CORPUS.ids.size(), held.applied());
            assertEquals(Set.of(2), marked, "the dead replica is marked behind; W=1 acknowledges with the other");
            assertAllFound(index);
        }
    }

    @Test
    void replicaThatStopsAcknowledging_windowTimesOut_replicaMarkedBehind_loadCompletes() throws IOException {
        node0Gate = new CountDownLatch(1);
        Set<Integer> down = ConcurrentHashMap.newKeySet();
        Set<Integer> marked = ConcurrentHashMap.newKeySet();
        try (IndexRouter index = replicated(down, marked, 3_000); BulkAppends held = held(4_000, new BucketStreams())) {
            down.add(0); // what the failure detector would say soon: read from the other replicas
            load(index, held, 0, CORPUS.ids.size());
            held.apply(index);
            assertEquals(CORPUS.ids.size(), held.applied());
            assertEquals(Set.of(0), marked, "the replica whose windows time out is marked behind, as for a unary write");
            assertAllFound(index);
        } finally {
            node0Gate.countDown();
        }
    }

    /**
     * A window far larger than a unary write is given longer than the write timeout: node 0
     * takes twice the timeout to apply its window, which holds 90,000 fingerprints (240,000
     * appends for each node) and so has 9.6 s at RemoteShardClient's least rate.
     */
    @Test
    void largeWindow_slowerThanTheWriteTimeout_butWithinItsSize_isApplied_noReplicaMarked() throws IOException {
        Corpus corpus = new Corpus(90_000, 150, 22);
        long writeTimeout = 1_500;
        node0DelayMillis = 2 * writeTimeout;
        Set<Integer> marked = ConcurrentHashMap.newKeySet();
        try (IndexRouter index = replicated(Set.of(), marked, writeTimeout); BulkAppends held = held(corpus.ids.size(), new BucketStreams())) {
            load(index, held, corpus, 0, corpus.ids.size());
            held.apply(index);
            assertEquals(corpus.ids.size(), held.applied());
            assertEquals(1, windowsAtNode0.sum(), "one window, slow on node 0");
            assertEquals(Set.of(), marked, "the window did not time out on node 0");
            assertAllFound(index, corpus);
        }
    }

    @Test
    void staleEpoch_windowRefused_thenSentAgainOnTheNewerMap_whileTheStreamNeverHoldsUpSetEpoch() throws Exception {
        NodeState state = new NodeState("n0", 5, true);
        RemoteShardClient node = node(0, state);
        BucketStreams streams = new BucketStreams();
        try (BulkAppends held = held(1 << 20, streams)) {
            try (IndexRouter at5 = new IndexRouter(List.of(node.atEpoch(5, 0, 0)), Placement.roundRobin(1), List.of(node), 1, false)) {
                load(at5, held, 0, 3_000);
                held.apply(at5);
                assertEquals(3_000, held.applied());
                load(at5, held, 3_000, CORPUS.ids.size());
                // The stream is open; the node moves to epoch 6 without waiting for it to end.
                assertTrue(state.raiseEpochAndDrain(6, 10_000), "an idle stream holds no call in flight under epoch 5");
                StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> held.apply(at5));
                assertTrue(ShardEpochs.isStale(e.getStatus()), e.getStatus().toString());
                assertEquals(3_000, held.applied(), "the refused window is kept");
            }
            try (IndexRouter at6 = new IndexRouter(List.of(node.atEpoch(6, 0, 0)), Placement.roundRobin(1), List.of(node), 1, false)) {
                held.apply(at6);
                assertEquals(CORPUS.ids.size(), held.applied());
                assertEquals(2, streams.opened(), "a new stream after the refused one");
                assertAllFound(at6);
            }
        }
    }

    @Test
    void windowWithABadTable_invalidArgumentClosesTheStream_andNothingOfItOrAfterItIsWritten() throws Exception {
        RemoteShardClient node = node(0, NodeState.standalone());
        CompletableFuture<io.grpc.Status> closed = new CompletableFuture<>();
        List<Long> acked = new java.util.concurrent.CopyOnWriteArrayList<>();
        io.grpc.stub.StreamObserver<ShardBucketWindow> windows = ShardGrpc.newStub(channels.get(0)).bucketAddStream(new io.grpc.stub.StreamObserver<>() {
            @Override
            public void onNext(ShardBucketWindowAck ack) {
                acked.add(ack.getSequence());
            }

            @Override
            public void onError(Throwable t) {
                closed.complete(io.grpc.Status.fromThrowable(t));
            }

            @Override
            public void onCompleted() {
                closed.complete(io.grpc.Status.OK);
            }
        });
        windows.onNext(window(1, 0, 42));
        windows.onNext(window(2, 0, 43).toBuilder().setAdditions(window(2, 0, 43).getAdditions().toBuilder()
                .addParts(ShardBucketPart.newBuilder().setTable(4).addFingerprints(44))).build());
        windows.onNext(window(3, 0, 45));
        io.grpc.Status status = closed.get(30, TimeUnit.SECONDS);
        assertEquals(io.grpc.Status.Code.INVALID_ARGUMENT, status.getCode());
        assertEquals("table 4 outside 0..3", status.getDescription());
        assertEquals(List.of(1L), acked);
        long[][] probes = {{42}, {43}, {45}};
        Found[][] found = node.probeMany("c", new long[]{0}, new int[]{0, 0, 0}, probes, new int[]{0, 0, 0}).join();
        assertEquals(1, found[0][0].fingerprints().length, "the window before is applied");
        assertEquals(0, found[1][0].fingerprints().length, "nothing of the bad window");
        assertEquals(0, found[2][0].fingerprints().length, "nor of the one after it");
    }

    private static ShardBucketWindow window(long sequence, int table, long fp) {
        return ShardBucketWindow.newBuilder().setSequence(sequence).setAdditions(ShardBucketAddManyRequest.newBuilder().setCollection("c")
                .addParts(ShardBucketPart.newBuilder().setTable(table).addFingerprints(fp).setNewFingerprints(true))).build();
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "timed out waiting until " + what);
            Thread.sleep(5);
        }
    }
}
