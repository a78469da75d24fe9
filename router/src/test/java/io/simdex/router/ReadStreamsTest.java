package io.simdex.router;

import io.grpc.ForwardingServerCallListener;
import io.grpc.Grpc;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.simdex.proto.v1.ShardGrpc;
import io.simdex.proto.v1.ShardReadRequest;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.simdex.router.shard.Found;
import io.simdex.router.shard.Ids;
import io.simdex.router.shard.RemoteShardClient;
import io.simdex.router.shard.ResetCountingChannel;
import io.simdex.router.shard.ShardChannels;
import io.simdex.router.shard.ShardEpochs;
import io.simdex.server.NodeState;
import io.simdex.server.ShardNode;
import io.simdex.server.ShardService;
import io.simdex.server.store.StoreSizing;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A query's reads (ProbeMany, ResolveIds) over a node's read streams (ReadStream), on a real
 * socket: the answers of a brute-force scan from a few long-lived calls whatever the
 * concurrency; a failing request fails alone; the fence checks each request; a hung node fails
 * its requests after the read timeout and the next request gets a new stream; a node without
 * ReadStream is asked unary.
 */
class ReadStreamsTest {
    private static final int STORED = 20_000;
    private static final int TABLES = 4;

    @TempDir
    Path dir;

    private final List<ShardNode> nodes = new ArrayList<>();
    private final List<Server> servers = new ArrayList<>();
    private final List<RemoteShardClient> clients = new ArrayList<>();
    /** Calls the node started, and ReadStream requests it was handed (as "request"), by bare method name. */
    private final ConcurrentHashMap<String, LongAdder> calls = new ConcurrentHashMap<>();
    /** The node takes its ReadStream requests only once this opens. */
    private volatile CountDownLatch gate = new CountDownLatch(0);
    /** The client address (host and port: the connection) of each ReadStream call. */
    private final List<String> streamPeers = new java.util.concurrent.CopyOnWriteArrayList<>();
    /** What the node reported of its streamed requests: method and code. */
    private final List<String> reported = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final long[] stored = new SplittableRandom(7).longs(STORED).toArray();

    @AfterEach
    void close() {
        gate.countDown();
        clients.forEach(RemoteShardClient::close);
        servers.forEach(Server::shutdownNow);
        nodes.forEach(ShardNode::close);
    }

    /** A node on a real port with the stored fingerprints in its four tables, and a client of it. */
    private RemoteShardClient node(NodeState state, boolean withReadStream) throws IOException {
        return node(state, withReadStream, null);
    }

    /** As {@link #node(NodeState, boolean)}; {@code readChannels} opens the streams' own connections to the node's address, or null. */
    private RemoteShardClient node(NodeState state, boolean withReadStream, java.util.function.Function<String, ManagedChannel> readChannels)
            throws IOException {
        ShardNode node = new ShardNode(dir.resolve("n" + nodes.size()), c -> StoreSizing.forShare(50_000, 1, 8));
        nodes.add(node);
        ServerServiceDefinition service = ShardService.withFence(node, state,
                (method, code, nanos) -> reported.add(method.substring(method.lastIndexOf('/') + 1) + " " + code), Runnable::run);
        if (!withReadStream) {
            ServerServiceDefinition.Builder b = ServerServiceDefinition.builder(service.getServiceDescriptor().getName());
            service.getMethods().stream().filter(m -> !m.getMethodDescriptor().getBareMethodName().equals("ReadStream")).forEach(b::addMethod);
            service = b.build();
        }
        Server server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                .addService(ServerInterceptors.intercept(service, new Watch())).build().start();
        servers.add(server);
        String address = "127.0.0.1:" + server.getPort();
        RemoteShardClient client = readChannels == null ? new RemoteShardClient(ShardChannels.forReplica(address))
                : new RemoteShardClient(ShardChannels.forReplica(address), () -> readChannels.apply(address));
        clients.add(client);
        for (int t = 0; t < TABLES; t++) {
            client.bucketAdd("c", 0, t, stored, true).join();
        }
        String[] ids = new String[STORED];
        for (int i = 0; i < STORED; i++) {
            ids[i] = "d" + i;
        }
        client.attachIds("c", 0, stored, ids).join();
        client.attachIds("c", 0, java.util.Arrays.copyOf(stored, 50), java.util.Arrays.stream(ids, 0, 50).map(id -> id + "-copy").toArray(String[]::new))
                .join();
        return client;
    }

    /** Counts calls and stream requests; holds stream requests at the gate. */
    private final class Watch implements ServerInterceptor {
        @Override
        public <Q, A> ServerCall.Listener<Q> interceptCall(ServerCall<Q, A> call, Metadata headers, ServerCallHandler<Q, A> next) {
            String method = call.getMethodDescriptor().getBareMethodName();
            count(method);
            if (method.equals("ReadStream")) {
                streamPeers.add(String.valueOf(call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR)));
            }
            ServerCall.Listener<Q> listener = next.startCall(call, headers);
            if (!method.equals("ReadStream")) {
                return listener;
            }
            return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(listener) {
                @Override
                public void onMessage(Q message) {
                    count("request");
                    if (message instanceof ShardReadRequest r && r.getProbeMany().getSharedFingerprints()) {
                        count("shared");
                    }
                    try {
                        gate.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    super.onMessage(message);
                }
            };
        }
    }

    private void count(String name) {
        calls.computeIfAbsent(name, m -> new LongAdder()).increment();
    }

    private long calls(String name) {
        LongAdder n = calls.get(name);
        return n == null ? 0 : n.sum();
    }

    @Test
    void concurrentQueries_answeredOnAFewStreams_asABruteForceScan() throws Exception {
        RemoteShardClient node = node(NodeState.standalone(), true);
        SplittableRandom rnd = new SplittableRandom(8);
        long[][] batches = new long[400][];
        for (int b = 0; b < batches.length; b++) {
            batches[b] = planted(rnd, 1 + rnd.nextInt(60));
        }
        long before = calls("ReadStream");
        ExecutorService callers = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (long[] probes : batches) {
                done.add(callers.submit(() -> assertBruteForce(probes, probe(node, probes, 3).join(), 3)));
            }
            for (Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            callers.shutdownNow();
        }
        assertEquals(batches.length, calls("request"), "one stream request per query");
        assertEquals(batches.length, calls("shared"), "the four tables' fingerprints sent once");
        assertTrue(calls("ReadStream") - before <= 4, "a few streams for " + batches.length + " queries: " + calls);
        assertEquals(0, calls("ProbeMany"), "no unary call: " + calls);
    }

    @Test
    void streamsWithConnectionsOfTheirOwn_eachOnAnotherConnection_closedWithTheClient_asABruteForceScan() throws Exception {
        List<ManagedChannel> opened = new java.util.concurrent.CopyOnWriteArrayList<>();
        RemoteShardClient node = node(NodeState.standalone(), true, address -> {
            ManagedChannel c = ShardChannels.forReplica(address);
            opened.add(c);
            return c;
        });
        long[][] batches = new long[4][];
        SplittableRandom rnd = new SplittableRandom(15);
        for (int b = 0; b < batches.length; b++) {
            batches[b] = planted(rnd, 30);
        }

        onFourStreams(node, batches);

        assertEquals(4, calls("ReadStream"), calls.toString());
        assertEquals(4, new TreeSet<>(streamPeers).size(), "each stream on a connection of its own: " + streamPeers);
        assertEquals(3, opened.size(), "the first stream shares the client's channel");
        clients.remove(node);
        node.close();
        assertTrue(opened.stream().allMatch(ManagedChannel::isShutdown), "the streams' connections closed with the client");
    }

    @Test
    void nodeGone_everyStreamConnectionReconnectsAtItsNextUse() throws Exception {
        List<ResetCountingChannel> opened = new java.util.concurrent.CopyOnWriteArrayList<>();
        RemoteShardClient node = node(NodeState.standalone(), true, address -> {
            ResetCountingChannel c = new ResetCountingChannel(ShardChannels.forReplica(address));
            opened.add(c);
            return c;
        });
        long[] probes = planted(new SplittableRandom(16), 10);
        onFourStreams(node, new long[][]{probes, probes, probes, probes});
        assertEquals(3, opened.size());

        // Terminated, not only told to stop: shutdownNow closes the open connections
        // asynchronously, and a probe sent before they closed was still answered.
        for (Server s : servers) {
            assertTrue(s.shutdownNow().awaitTermination(10, TimeUnit.SECONDS), "the node's server terminated");
        }
        CompletionException e = assertThrows(CompletionException.class, () -> probe(node, probes, 3).join());

        assertEquals(Status.Code.UNAVAILABLE, Status.fromThrowable(e.getCause()).getCode(), e.toString());
        assertTrue(opened.stream().allMatch(c -> c.resets.sum() > 0), "each stream's own connection left its backoff");
    }

    /** Four queries held at the node, so that each finds every open stream busy and opens another; then their answers checked. */
    private void onFourStreams(RemoteShardClient node, long[][] batches) throws Exception {
        gate = new CountDownLatch(1);
        List<CompletableFuture<Found[][]>> answers = new ArrayList<>();
        for (long[] probes : batches) {
            answers.add(probe(node, probes, 3));
        }
        gate.countDown();
        for (int b = 0; b < batches.length; b++) {
            assertBruteForce(batches[b], answers.get(b).get(60, TimeUnit.SECONDS), 3);
        }
    }

    @Test
    void resolveIds_overTheStream_everyIdAndTotal_limitedAsAsked() throws Exception {
        RemoteShardClient node = node(NodeState.standalone(), true);
        long[] fps = {stored[0], stored[1], stored[49], stored[50], stored[STORED - 1], 42};

        Ids[] all = node.resolveIds("c", new long[]{0, 0, 0, 0, 0, 0}, fps, 0).join();
        Ids[] one = node.resolveIds("c", new long[]{0, 0, 0, 0, 0, 0}, fps, 1).join();

        assertEquals(List.of("d0", "d0-copy"), sorted(all[0].ids()));
        assertEquals(List.of("d1", "d1-copy"), sorted(all[1].ids()));
        assertEquals(List.of("d49", "d49-copy"), sorted(all[2].ids()));
        assertEquals(List.of("d50"), sorted(all[3].ids()));
        assertEquals(List.of("d" + (STORED - 1)), sorted(all[4].ids()));
        assertEquals(List.of(), sorted(all[5].ids()), "a fingerprint never stored");
        long[] totals = {2, 2, 2, 1, 1, 0};
        for (int i = 0; i < fps.length; i++) {
            assertEquals(totals[i], all[i].total(), "total of " + i);
            assertEquals(totals[i], one[i].total(), "total of " + i + " at limit 1");
            assertEquals(Math.min(1, totals[i]), one[i].ids().length, "ids of " + i + " at limit 1");
        }
        assertEquals(2, calls("request"));
        assertEquals(0, calls("ResolveIds"), "no unary call: " + calls);
        assertEquals(List.of("ResolveIds OK", "ResolveIds OK"), reported);
    }

    private static List<String> sorted(String[] ids) {
        return java.util.Arrays.stream(ids).sorted().toList();
    }

    @Test
    void partsProbingDifferentFingerprints_eachSentItsOwn_asABruteForceScan() throws Exception {
        RemoteShardClient node = node(NodeState.standalone(), true);
        long[] probes = planted(new SplittableRandom(14), 40);
        long[] firstHalf = java.util.Arrays.copyOf(probes, 20);

        Found[][] found = node.probeMany("c", new long[]{0}, new int[]{0, 1, 2, 3}, new long[][]{probes, probes, probes, firstHalf},
                new int[]{3, 3, 3, 3}).join();

        assertEquals(0, calls("shared"));
        // Probes of the first half were probed in every table: all within 3. The second half miss table 3's matches.
        Found[][] firstHalfFound = new Found[4][];
        for (int t = 0; t < 4; t++) {
            firstHalfFound[t] = java.util.Arrays.copyOf(found[t], 20);
        }
        assertBruteForce(firstHalf, firstHalfFound, 3);
        assertEquals(20, found[3].length);
    }

    @Test
    void sharedFingerprintsWithALaterPartsOwn_invalidArgument() throws Exception {
        node(NodeState.standalone(), true);
        ManagedChannel channel = clients.get(0).channel();
        io.simdex.proto.v1.ShardProbeManyRequest bad = io.simdex.proto.v1.ShardProbeManyRequest.newBuilder().setCollection("c")
                .addGenerations(0).setSharedFingerprints(true)
                .addParts(io.simdex.proto.v1.ShardProbePart.newBuilder().setTable(0).setMaxDistance(3).addFingerprints(stored[0]))
                .addParts(io.simdex.proto.v1.ShardProbePart.newBuilder().setTable(1).setMaxDistance(3).addFingerprints(stored[1])).build();

        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> ShardGrpc.newBlockingStub(channel).probeMany(bad));

        assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode());
        assertTrue(e.getStatus().getDescription().contains("part 1 has fingerprints of its own"), e.getStatus().getDescription());
    }

    @Test
    void badRequest_failsAloneWithItsStatus_theStreamGoesOn() throws Exception {
        RemoteShardClient node = node(NodeState.standalone(), true);
        long[] probes = planted(new SplittableRandom(9), 20);

        CompletionException e = assertThrows(CompletionException.class,
                () -> node.probeMany("c", new long[]{0}, new int[]{0, 9}, new long[][]{probes, probes}, new int[]{3, 3}).join());
        Status status = Status.fromThrowable(e.getCause());
        assertEquals(Status.Code.INVALID_ARGUMENT, status.getCode(), status.toString());
        assertTrue(status.getDescription().contains("table"), status.getDescription());
        for (int i = 0; i < 5; i++) {
            assertBruteForce(probes, probe(node, probes, 3).join(), 3);
        }
        assertEquals(1, calls("ReadStream"), "the failed request did not end its stream: " + calls);
        assertEquals(6, calls("request"));
        assertEquals(List.of("ProbeMany INVALID_ARGUMENT", "ProbeMany OK", "ProbeMany OK", "ProbeMany OK", "ProbeMany OK", "ProbeMany OK"),
                reported, "each request reported as the ProbeMany it stands for");
    }

    @Test
    void staleEpoch_refusedPerRequest_asTheFenceWordsIt() throws Exception {
        NodeState state = new NodeState("n0", 5, true);
        RemoteShardClient node = node(state, true);
        long[] probes = planted(new SplittableRandom(10), 10);

        CompletionException e = assertThrows(CompletionException.class, () -> probe(node.atEpoch(4, 5_000, 5_000), probes, 3).join());
        Status status = Status.fromThrowable(e.getCause());
        assertTrue(ShardEpochs.isStale(status), status.toString());
        assertBruteForce(probes, probe(node.atEpoch(5, 5_000, 5_000), probes, 3).join(), 3);
        assertEquals(0, calls("ProbeMany"), "both went on streams: " + calls);
    }

    @Test
    void nodeCatchingUp_answersUnavailable_notAskedAgainUnary() throws Exception {
        NodeState state = new NodeState("n0", 0, true);
        RemoteShardClient node = node(state, true);
        long[] probes = planted(new SplittableRandom(13), 10);
        state.readable(false);

        CompletionException e = assertThrows(CompletionException.class, () -> probe(node, probes, 3).join());
        Status status = Status.fromThrowable(e.getCause());
        assertEquals(Status.Code.UNAVAILABLE, status.getCode(), status.toString());
        assertTrue(status.getDescription().contains("catching up"), status.getDescription());
        assertEquals(0, calls("ProbeMany"), "the node's own answer is the read's: " + calls);
        state.readable(true);
        assertBruteForce(probes, probe(node, probes, 3).join(), 3);
        assertEquals(1, calls("ReadStream"), calls.toString());
    }

    @Test
    void hungNode_failsDeadlineExceededAfterTheReadTimeout_thenANewStreamAnswers() throws Exception {
        RemoteShardClient node = node(NodeState.standalone(), true).atEpoch(0, 300, 5_000);
        long[] probes = planted(new SplittableRandom(11), 10);
        assertBruteForce(probes, probe(node, probes, 3).join(), 3);
        long streams = calls("ReadStream");

        gate = new CountDownLatch(1);
        long start = System.nanoTime();
        CompletionException e = assertThrows(CompletionException.class, () -> probe(node, probes, 3).join());
        long waitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertEquals(Status.Code.DEADLINE_EXCEEDED, Status.fromThrowable(e.getCause()).getCode(), e.toString());
        assertTrue(waitedMillis >= 300, "failed after " + waitedMillis + " ms, before the read timeout");
        gate.countDown();

        assertBruteForce(probes, probe(node, probes, 3).join(), 3);
        assertTrue(calls("ReadStream") > streams, "a new stream after the hung one: " + calls);
    }

    @Test
    void nodeWithoutReadStream_askedUnary_sameAnswers() throws Exception {
        RemoteShardClient node = node(NodeState.standalone(), false);
        long[] probes = planted(new SplittableRandom(12), 30);

        for (int i = 0; i < 3; i++) {
            assertBruteForce(probes, probe(node, probes, 3).join(), 3);
        }
        assertEquals(3, calls("ProbeMany"), "unary once the node answered UNIMPLEMENTED: " + calls);
        assertNull(calls.get("request"));
    }

    /** The four tables probed at once, as a query does. */
    private static CompletableFuture<Found[][]> probe(RemoteShardClient node, long[] probes, int maxDistance) {
        return node.probeMany("c", new long[]{0}, new int[]{0, 1, 2, 3}, new long[][]{probes, probes, probes, probes},
                new int[]{maxDistance, maxDistance, maxDistance, maxDistance});
    }

    /** Probes 0 to 5 bits from stored fingerprints, and a few random ones. */
    private long[] planted(SplittableRandom rnd, int n) {
        long[] out = new long[n];
        for (int i = 0; i < n; i++) {
            long p = i % 7 == 6 ? rnd.nextLong() : stored[rnd.nextInt(STORED)];
            long flipped = 0;
            while (Long.bitCount(flipped) < i % 6) { // distances 0..5, the edges 3 and 4 among them
                flipped |= 1L << rnd.nextInt(64);
            }
            out[i] = p ^ flipped;
        }
        return out;
    }

    /** The union of a probe's four tables' matches is every stored fingerprint within the distance. */
    private void assertBruteForce(long[] probes, Found[][] found, int maxDistance) {
        assertEquals(TABLES, found.length);
        for (int i = 0; i < probes.length; i++) {
            TreeSet<Long> expected = new TreeSet<>();
            for (long s : stored) {
                if (Long.bitCount(s ^ probes[i]) <= maxDistance) {
                    expected.add(s);
                }
            }
            TreeSet<Long> actual = new TreeSet<>();
            for (Found[] table : found) {
                for (long fp : table[i].fingerprints()) {
                    actual.add(fp);
                }
            }
            assertEquals(expected, actual, "probe " + Long.toHexString(probes[i]));
        }
    }
}
