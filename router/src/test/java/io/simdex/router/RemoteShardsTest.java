package io.simdex.router;

import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.simdex.core.Partitions;
import io.simdex.fingerprint.BitFlips;
import io.simdex.fingerprint.Hamming;
import io.simdex.fingerprint.BlockTables;
import io.simdex.proto.v1.ShardGrpc;
import io.simdex.proto.v1.ShardIntentDocs;
import io.simdex.proto.v1.ShardProbeManyRequest;
import io.simdex.proto.v1.ShardProbeManyResponse;
import io.simdex.proto.v1.ShardReadAnswer;
import io.simdex.proto.v1.ShardReadRequest;
import io.simdex.proto.v1.ShardProbePart;
import io.simdex.proto.v1.ShardResolveRequest;
import io.simdex.core.text.MinHashSketch;
import io.simdex.core.text.Sketcher;
import io.simdex.router.index.ExportCursor;
import io.simdex.router.index.IndexRouter;
import io.simdex.router.index.SketchRule;
import io.simdex.router.index.VerificationBudget;
import io.simdex.router.index.Window;
import io.simdex.router.shard.Found;
import io.simdex.router.shard.IdWrites;
import io.simdex.router.shard.Ids;
import io.simdex.router.shard.NodeReads;
import io.simdex.router.shard.Placement;
import io.simdex.router.shard.Probed;
import io.simdex.router.shard.RemoteShardClient;
import io.simdex.router.shard.ReplicaSet;
import io.simdex.router.shard.ShardClient;
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
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The router over shard nodes behind their gRPC service, in replica sets as a cluster places
 * them: the batched node calls (ProbeMany, BucketAddMany) give the answers of a brute-force scan.
 */
class RemoteShardsTest {
    private static final int NODES = 3;

    @TempDir
    Path dir;

    private final List<ShardNode> nodes = new ArrayList<>();
    private final List<Server> servers = new ArrayList<>();
    private final List<RemoteShardClient> clients = new ArrayList<>();
    /** Calls the nodes served, by bare method name. */
    private final ConcurrentHashMap<String, LongAdder> calls = new ConcurrentHashMap<>();
    /** Fingerprints whose ids the nodes' ProbeMany answers resolved. */
    private final LongAdder resolvedByNodes = new LongAdder();
    /** Nodes whose calls fail UNAVAILABLE. */
    private final java.util.Set<Integer> down = ConcurrentHashMap.newKeySet();

    @AfterEach
    void close() {
        clients.forEach(RemoteShardClient::close);
        servers.forEach(Server::shutdownNow);
        nodes.forEach(ShardNode::close);
    }

    /** What a node of an older version lacks. */
    private enum Version {
        CURRENT,
        /** Answers ProbeMany and ResolveIds in the nested form whatever the request's flat says. */
        NESTED,
        /** Has neither ProbeMany, BucketAddMany nor WriteIds (nor the flat form). */
        UNBATCHED
    }

    private RemoteShardClient node(int i) throws IOException {
        return node(i, Version.CURRENT);
    }

    private RemoteShardClient node(int i, Version version) throws IOException {
        ShardNode node = new ShardNode(dir.resolve("n" + i), c -> StoreSizing.forShare(50_000, NODES, 8));
        nodes.add(node);
        ServerServiceDefinition service = new ShardService(node).bindService();
        if (version == Version.NESTED) {
            service = ServerInterceptors.intercept(service, NestedAnswers.INSTANCE);
        }
        if (version == Version.UNBATCHED) {
            ServerServiceDefinition.Builder b = ServerServiceDefinition.builder(service.getServiceDescriptor().getName());
            service.getMethods().stream().filter(m -> older(m.getMethodDescriptor().getBareMethodName())).forEach(b::addMethod);
            service = b.build();
        }
        String name = InProcessServerBuilder.generateName();
        servers.add(InProcessServerBuilder.forName(name).addService(ServerInterceptors.intercept(service, new io.grpc.ServerInterceptor() {
            @Override
            public <Q, A> io.grpc.ServerCall.Listener<Q> interceptCall(io.grpc.ServerCall<Q, A> served, io.grpc.Metadata headers,
                    io.grpc.ServerCallHandler<Q, A> next) {
                io.grpc.ServerCall<Q, A> call = new io.grpc.ForwardingServerCall.SimpleForwardingServerCall<>(served) {
                    @Override
                    public void sendMessage(A message) {
                        if (message instanceof ShardProbeManyResponse r) {
                            resolvedByNodes.add(r.getResolved().getFingerprintsCount());
                        } else if (message instanceof ShardReadAnswer a) {
                            resolvedByNodes.add(a.getProbeMany().getResolved().getFingerprintsCount());
                        }
                        super.sendMessage(message);
                    }
                };
                if (call.getMethodDescriptor().getBareMethodName().equals("ReadStream")) {
                    return readStream(call, headers, next);
                }
                calls.computeIfAbsent(call.getMethodDescriptor().getBareMethodName(), m -> new LongAdder()).increment();
                if (down.contains(i)) {
                    call.close(Status.UNAVAILABLE.withDescription("node " + i + " is down"), new io.grpc.Metadata());
                    return new io.grpc.ServerCall.Listener<>() { };
                }
                return next.startCall(call, headers);
            }

            /** Counts each request of a read stream as the call it stands for; a node that goes down ends its streams. */
            private <Q, A> io.grpc.ServerCall.Listener<Q> readStream(io.grpc.ServerCall<Q, A> call, io.grpc.Metadata headers,
                    io.grpc.ServerCallHandler<Q, A> next) {
                return new io.grpc.ForwardingServerCallListener.SimpleForwardingServerCallListener<>(next.startCall(call, headers)) {
                    private boolean closed;

                    @Override
                    public void onMessage(Q message) {
                        if (closed) {
                            return;
                        }
                        String read = ((ShardReadRequest) message).hasResolveIds() ? "ResolveIds" : "ProbeMany";
                        calls.computeIfAbsent(read, m -> new LongAdder()).increment();
                        if (down.contains(i)) {
                            closed = true;
                            call.close(Status.UNAVAILABLE.withDescription("node " + i + " is down"), new io.grpc.Metadata());
                            return;
                        }
                        super.onMessage(message);
                    }
                };
            }
        })).build().start());
        ManagedChannel channel = InProcessChannelBuilder.forName(name).build();
        RemoteShardClient client = new RemoteShardClient(channel);
        clients.add(client);
        return client;
    }

    /** Whether an UNBATCHED node has the method. */
    private static boolean older(String method) {
        return !method.endsWith("Many") && !method.endsWith("Stream") && !method.equals("WriteIds");
    }

    /** A node of a version before the flat answers: it never sees the request's flat. */
    private static final class NestedAnswers implements io.grpc.ServerInterceptor {
        static final NestedAnswers INSTANCE = new NestedAnswers();

        @Override
        public <Q, A> io.grpc.ServerCall.Listener<Q> interceptCall(io.grpc.ServerCall<Q, A> call, io.grpc.Metadata headers,
                io.grpc.ServerCallHandler<Q, A> next) {
            return new io.grpc.ForwardingServerCallListener.SimpleForwardingServerCallListener<>(next.startCall(call, headers)) {
                @Override
                @SuppressWarnings("unchecked")
                public void onMessage(Q message) {
                    if (message instanceof ShardProbeManyRequest r) {
                        message = (Q) r.toBuilder().clearFlat().build();
                    } else if (message instanceof ShardReadRequest r && r.hasProbeMany()) {
                        message = (Q) r.toBuilder().setProbeMany(r.getProbeMany().toBuilder().clearFlat()).build();
                    } else if (message instanceof ShardReadRequest r && r.hasResolveIds()) {
                        message = (Q) r.toBuilder().setResolveIds(r.getResolveIds().toBuilder().clearFlat()).build();
                    } else if (message instanceof ShardResolveRequest r) {
                        message = (Q) r.toBuilder().clearFlat().build();
                    }
                    super.onMessage(message);
                }
            };
        }
    }

    /** Replica sets as PartitionMap.initial places R=2 over 3 nodes: {0,1}, {1,2}, {2,0}, write quorum 1; marks go to {@code behind}. */
    private List<ShardClient> replicaSets(ReplicaSet.Behind behind) throws IOException {
        return replicaSets(behind, Version.CURRENT);
    }

    private List<ShardClient> replicaSets(ReplicaSet.Behind behind, Version version) throws IOException {
        for (int i = 0; i < NODES; i++) {
            node(i, version);
        }
        List<ShardClient> groups = new ArrayList<>();
        for (int g = 0; g < NODES; g++) {
            int a = g;
            int b = (g + 1) % NODES;
            groups.add(new ReplicaSet(List.of(clients.get(a), clients.get(b)), new int[]{a, b}, List.of(), new int[0], 1, n -> true,
                    n -> !down.contains(n), 0, 0, behind));
        }
        return groups;
    }

    /**
     * Groups as PartitionMap.initial places R replicas over the 3 nodes ({g, g+1, ...}), write
     * quorum 1, and their reads node by node; {@code readable} is what the failure detector says.
     */
    private IndexRouter nodeReadRouter(int replication, java.util.function.IntPredicate readable) throws IOException {
        for (int i = 0; i < NODES; i++) {
            node(i);
        }
        List<ShardClient> groups = new ArrayList<>();
        int[][] replicas = new int[NODES][replication];
        for (int g = 0; g < NODES; g++) {
            for (int r = 0; r < replication; r++) {
                replicas[g][r] = (g + r) % NODES;
            }
            List<ShardClient> serving = java.util.Arrays.stream(replicas[g]).mapToObj(n -> (ShardClient) clients.get(n)).toList();
            groups.add(new ReplicaSet(serving, replicas[g], List.of(), new int[0], 1, n -> true, readable, 0, 0,
                    node -> CompletableFuture.completedFuture(null)));
        }
        Placement placement = Placement.roundRobin(NODES);
        return new IndexRouter(groups, placement, List.copyOf(clients), replication, false,
                new NodeReads(List.copyOf(clients), replicas, placement, readable));
    }

    /** 6,000 documents ({@link #fingerprints}) inserted through {@code index}, and the random source that made them. */
    private record Stored(long[] fps, String[] ids, SplittableRandom rnd) {
    }

    private static Stored store(IndexRouter index, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        long[] fps = fingerprints(rnd, 6_000);
        String[] ids = ids(fps.length);
        insertInBatches(index, ids, fps, 2_000);
        return new Stored(fps, ids, rnd);
    }

    /** n documents, every third near an earlier one, so buckets hold neighbours. */
    private static long[] fingerprints(SplittableRandom rnd, int n) {
        long[] fps = new long[n];
        for (int i = 0; i < n; i++) {
            fps[i] = i % 3 == 2 ? BitFlips.flip(fps[rnd.nextInt(i)], rnd.nextInt(6), rnd) : rnd.nextLong();
        }
        return fps;
    }


    private static String[] ids(int n) {
        return java.util.stream.IntStream.range(0, n).mapToObj(i -> "d" + i).toArray(String[]::new);
    }

    private static void insertInBatches(IndexRouter index, String[] ids, long[] fps, int batch) {
        for (int from = 0; from < ids.length; from += batch) {
            int to = Math.min(ids.length, from + batch);
            index.insert("c", Window.FOREVER, java.util.Arrays.copyOfRange(ids, from, to), java.util.Arrays.copyOfRange(fps, from, to));
        }
    }

    /** Probes near stored documents give exactly the brute-force answer at distances 3 and 5. */
    private static void assertExact(IndexRouter index, long[] fps, String[] ids, SplittableRandom rnd) {
        long[] probes = new long[100];
        for (int i = 0; i < probes.length; i++) {
            probes[i] = BitFlips.flip(fps[rnd.nextInt(fps.length)], i % 7, rnd);
        }
        for (int k : new int[]{3, 5}) { // 5: the neighbouring buckets' parts too
            List<IndexRouter.Nearest> found = index.query("c", Window.FOREVER, probes, k, 0);
            for (int q = 0; q < probes.length; q++) {
                assertEquals(bruteForce(fps, ids, probes[q], k), idsOf(found.get(q)), "probe " + q + " at distance " + k);
            }
        }
    }

    @Test
    void insertAndQuery_replicaSetsOfRemoteNodes_matchBruteForce() throws IOException {
        try (IndexRouter index = new IndexRouter(replicaSets(node -> CompletableFuture.completedFuture(null)), Placement.roundRobin(NODES),
                List.copyOf(clients), 2, false)) {
            SplittableRandom rnd = new SplittableRandom(11);
            long[] fps = fingerprints(rnd, 6_000);
            String[] ids = ids(fps.length);
            insertInBatches(index, ids, fps, 2_000);
            assertExact(index, fps, ids, rnd);

            // Lookup by id through the replica sets: every stored id with its fingerprint, an unknown one not found.
            String[] asked = java.util.Arrays.copyOf(ids, ids.length + 1);
            asked[ids.length] = "never-stored";
            io.simdex.router.shard.Bound bound = index.lookup("c", Window.FOREVER, asked);
            for (int i = 0; i < ids.length; i++) {
                assertTrue(bound.found()[i], ids[i]);
                assertEquals(fps[i], bound.fingerprints()[i], ids[i]);
            }
            assertFalse(bound.found()[ids.length]);
        }
    }

    @Test
    void export_throughReplicaSets_eachDocumentOnce_eachGroupReadFromOneNode_whichBeingDownFailsThePage() throws IOException {
        try (IndexRouter index = new IndexRouter(replicaSets(node -> CompletableFuture.completedFuture(null)), Placement.roundRobin(NODES),
                List.copyOf(clients), 2, false)) {
            SplittableRandom rnd = new SplittableRandom(17);
            long[] fps = fingerprints(rnd, 6_000);
            String[] ids = ids(fps.length);
            insertInBatches(index, ids, fps, 2_000);
            java.util.Map<String, Long> expected = new java.util.HashMap<>();
            for (int i = 0; i < ids.length; i++) {
                expected.put(ids[i], fps[i]);
            }
            // Each replica holds every record of its groups: a page read from the other replica
            // would repeat or skip bindings, since positions are a node's own.
            java.util.Map<String, Long> out = new java.util.HashMap<>();
            java.util.Map<Integer, java.util.Set<Integer>> nodesOfGroup = new java.util.HashMap<>();
            ExportCursor cursor = null;
            do {
                IndexRouter.ExportedPage page = index.export("c", Window.FOREVER, cursor, 200);
                take(page, out);
                cursor = page.next();
                if (cursor != null) {
                    nodesOfGroup.computeIfAbsent(cursor.group(), g -> new TreeSet<>()).add(cursor.node());
                }
            } while (cursor != null);
            Calls.assertSameBindings(expected, out, "export");
            nodesOfGroup.forEach((g, n) -> assertEquals(1, n.size(), "group " + g + " read from nodes " + n));

            // The node a group is read from goes down after the first page: the next page fails
            // UNAVAILABLE rather than go on at another replica, and goes on once it is back.
            IndexRouter.ExportedPage first = index.export("c", Window.FOREVER, null, 200);
            int node = first.next().node();
            down.add(node);
            StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> index.export("c", Window.FOREVER, first.next(), 200));
            assertEquals(Status.Code.UNAVAILABLE, e.getStatus().getCode(), e.getStatus().toString());
            down.remove(node);
            out.clear();
            take(first, out);
            for (cursor = first.next(); cursor != null; ) {
                IndexRouter.ExportedPage page = index.export("c", Window.FOREVER, cursor, 200);
                take(page, out);
                cursor = page.next();
            }
            Calls.assertSameBindings(expected, out, "export after the node came back");
        }
    }

    private static void take(IndexRouter.ExportedPage page, java.util.Map<String, Long> out) {
        for (int i = 0; i < page.ids().length; i++) {
            assertEquals(null, out.put(page.ids()[i], page.fingerprints()[i]), page.ids()[i] + " exported twice");
        }
    }

    /**
     * Probes that differ from a stored document in every block, (1,1,1,1) to (2,2,2,2) bits in
     * every rotation, and probes 0 to 8 bits from one: at each distance from 4 to 7 only some
     * tables' neighbour buckets hold them (BlockTables.neighbourTables), and those parts, sent to
     * the nodes that own them, give exactly the brute-force answer.
     */
    @Test
    void query_everyBlockDiffers_distances4To7_matchBruteForce() throws IOException {
        try (IndexRouter index = new IndexRouter(replicaSets(node -> CompletableFuture.completedFuture(null)), Placement.roundRobin(NODES),
                List.copyOf(clients), 2, false)) {
            SplittableRandom rnd = new SplittableRandom(13);
            long[] fps = fingerprints(rnd, 6_000);
            String[] ids = ids(fps.length);
            insertInBatches(index, ids, fps, 2_000);
            int[][] spreads = {{1, 1, 1, 1}, {2, 1, 1, 1}, {2, 2, 1, 1}, {2, 2, 2, 1}, {2, 2, 2, 2}};
            long[] probes = new long[120];
            for (int i = 0; i < probes.length; i++) {
                long near = fps[rnd.nextInt(fps.length)];
                if (i % 2 == 0) {
                    probes[i] = BitFlips.flip(near, i / 2 % 9, rnd);
                } else {
                    int[] spread = spreads[i / 2 % spreads.length];
                    for (int t = 0; t < BlockTables.TABLES; t++) {
                        near = BitFlips.flipInBlock(near, (t + i / 2) % BlockTables.TABLES, spread[t], rnd);
                    }
                    probes[i] = near;
                }
            }
            for (int k = 4; k <= BlockTables.MAX_NEIGHBOUR_DISTANCE; k++) {
                List<IndexRouter.Nearest> found = index.query("c", Window.FOREVER, probes, k, 0);
                for (int q = 0; q < probes.length; q++) {
                    assertEquals(bruteForce(fps, ids, probes[q], k), idsOf(found.get(q)), "probe " + q + " at distance " + k);
                }
            }
        }
    }

    @Test
    void insertAndQuery_nodesAnsweringNestedForm_matchBruteForce() throws IOException {
        try (IndexRouter index = new IndexRouter(replicaSets(node -> CompletableFuture.completedFuture(null), Version.NESTED),
                Placement.roundRobin(NODES), List.copyOf(clients), 2, false)) {
            SplittableRandom rnd = new SplittableRandom(11);
            long[] fps = fingerprints(rnd, 6_000);
            String[] ids = ids(fps.length);
            insertInBatches(index, ids, fps, 2_000);
            calls.clear();
            assertExact(index, fps, ids, rnd);
            assertTrue(calls.get("ResolveIds").sum() > 0, "matches of other groups resolved in a second round");
        }
    }

    @Test
    void query_nodeReadsAtR2_matchBruteForce_atMostTwoNodesPerRound() throws IOException {
        try (IndexRouter index = nodeReadRouter(2, n -> true)) {
            Stored stored = store(index, 21);
            calls.clear();
            assertExact(index, stored.fps(), stored.ids(), stored.rnd()); // 2 queries
            // Two of the three nodes serve all three groups: two calls a round, not three.
            assertEquals(4, calls.get("ProbeMany").sum(), "ProbeMany calls for 2 queries");
            assertTrue(calls.get("ResolveIds").sum() <= 4, "ResolveIds calls for 2 queries: " + calls.get("ResolveIds"));
        }
    }

    @Test
    void query_nodeReadsAtR3_oneNodeAnswersAllInOneRoundTrip() throws IOException {
        try (IndexRouter index = nodeReadRouter(3, n -> true)) {
            Stored stored = store(index, 22);
            calls.clear();
            assertExact(index, stored.fps(), stored.ids(), stored.rnd());
            assertEquals(2, calls.get("ProbeMany").sum(), "one ProbeMany per query");
            assertEquals(null, calls.get("ResolveIds"), "every id came with the probe");
        }
    }

    @Test
    void query_nodeReads_nodeDownButNotYetSeen_readAgainThroughReplicaSets_exact() throws IOException {
        try (IndexRouter index = nodeReadRouter(2, n -> true)) {
            Stored stored = store(index, 23);
            down.add(1);
            calls.clear();
            for (int q = 0; q < 3; q++) { // the first node turns with each query: node 1 is read by node in two of three
                assertExact(index, stored.fps(), stored.ids(), stored.rnd());
            }
            assertTrue(calls.get("ProbeMany").sum() > 12, "queries that met node 1 were read again: " + calls.get("ProbeMany"));
        }
    }

    @Test
    void query_nodeReads_unreadableNodeSkipped_exact() throws IOException {
        try (IndexRouter index = nodeReadRouter(2, n -> !down.contains(n))) {
            Stored stored = store(index, 24);
            down.add(2);
            calls.clear();
            assertExact(index, stored.fps(), stored.ids(), stored.rnd());
            // Nodes 0 and 1 serve all three groups: node 2 is never asked.
            assertEquals(4, calls.get("ProbeMany").sum());
        }
    }

    @Test
    void probeResolvingAndResolveIds_flatAndNestedAnswers_sameMatchesIdsAndTotals() throws IOException {
        RemoteShardClient flat = node(0);
        RemoteShardClient nested = node(1, Version.NESTED);
        long[] fps = {42, 43, 42 ^ 0b101, 1L << 63};
        for (RemoteShardClient shard : List.of(flat, nested)) {
            shard.bucketAdd("c", 0, 3, fps, true).join(); // table 3: the top 16 bits, all 0 but for 2^63
            shard.attachIds("c", 0, new long[]{42, 42, 42, 43, 42 ^ 0b101}, new String[]{"a", "b", "c", "d", "e"}).join();
        }
        byte[] all = new byte[Partitions.COUNT / 8];
        java.util.Arrays.fill(all, (byte) -1);
        long[][] probes = {{42, ~42L, 43}, {1L << 63}};
        for (int limit : new int[]{0, 1, 2}) {
            Probed a = flat.probeResolving("c", new long[]{0}, new int[]{3, 3}, probes, new int[]{3, 0}, all, limit).join();
            Probed b = nested.probeResolving("c", new long[]{0}, new int[]{3, 3}, probes, new int[]{3, 0}, all, limit).join();
            assertEquals(describe(b), describe(a), "limit " + limit);
            assertEquals(3, a.parts()[0][0].fingerprints().length, "42 finds 42, 43 and 42^0b101");
            assertEquals(0, a.parts()[0][1].fingerprints().length);
            assertEquals(3, a.parts()[0][2].fingerprints().length);
            assertEquals(1, a.parts()[1][0].fingerprints().length, "2^63 finds itself, with no ids");
            long[] asked = {42, 43, ~42L, 1L << 63};
            long[] gens = new long[asked.length];
            assertEquals(describe(nested.resolveIds("c", gens, asked, limit).join()), describe(flat.resolveIds("c", gens, asked, limit).join()));
            Ids[] ids = flat.resolveIds("c", gens, asked, limit).join();
            assertEquals(3, ids[0].total());
            assertEquals(limit == 0 ? 3 : limit, ids[0].ids().length);
            assertEquals(0, ids[2].total());
            assertEquals(0, ids[2].ids().length);
        }
        // The current node answers flat: counts and packed values, no message per probe or fingerprint.
        ShardProbeManyResponse wire = ShardGrpc.newBlockingStub(flat.channel()).probeMany(ShardProbeManyRequest.newBuilder().setCollection("c")
                .addGenerations(0).addParts(ShardProbePart.newBuilder().setTable(3).addFingerprints(42).addFingerprints(~42L).setMaxDistance(3))
                .setResolvePartitions(com.google.protobuf.ByteString.copyFrom(all)).setFlat(true).build());
        assertEquals(List.of(3, 0), wire.getMatchCountsList());
        assertEquals(0, wire.getPartsCount());
        assertEquals(3, wire.getResolvedIdCountsCount());
        assertEquals(0, wire.getResolvedIdsCount());
    }

    private static String describe(Probed p) {
        StringBuilder b = new StringBuilder();
        for (Found[] part : p.parts()) {
            for (Found f : part) {
                b.append(java.util.Arrays.toString(f.fingerprints())).append(java.util.Arrays.toString(f.generations())).append(';');
            }
            b.append('|');
        }
        b.append(java.util.Arrays.toString(p.resolved().fingerprints())).append(java.util.Arrays.toString(p.resolved().generations()));
        return b.append(describe(p.ids())).toString();
    }

    private static String describe(Ids[] ids) {
        StringBuilder b = new StringBuilder();
        for (Ids i : ids) {
            b.append(java.util.Arrays.toString(i.ids())).append('/').append(i.total()).append(';');
        }
        return b.toString();
    }

    @Test
    void insert_eachPhaseIsOneCallPerNode_notOnePerReplicaSet() throws IOException {
        try (IndexRouter index = new IndexRouter(replicaSets(node -> CompletableFuture.completedFuture(null)), Placement.roundRobin(NODES),
                List.copyOf(clients), 2, false)) {
            SplittableRandom rnd = new SplittableRandom(12);
            long[] fps = fingerprints(rnd, 3_000);
            String[] ids = ids(fps.length);
            insertInBatches(index, ids, fps, 1_000);
            // Each node serves two of the three replica sets: one call per node and phase, not two;
            // binds and attaches are one phase.
            for (String phase : List.of("WriteIds", "BucketAddMany")) {
                assertEquals(3 * NODES, calls.get(phase).sum(), phase + " calls for 3 batches over " + NODES + " nodes");
            }
            assertEquals(null, calls.get("BindIds"));
            assertEquals(null, calls.get("AttachIds"));
            // Ids bound again elsewhere: each replica set's slice of the merged bind says where each id was.
            SplittableRandom moved = new SplittableRandom(13);
            for (int i = 0; i < fps.length; i += 2) {
                fps[i] = moved.nextLong();
            }
            insertInBatches(index, ids, fps, 1_000);
            assertExact(index, fps, ids, rnd);
            // Pairs of ids swap fingerprints in one batch: each fingerprint gains an id while it
            // loses its old one (bind and attach go out together, the detach after them).
            for (int i = 1; i + 1 < fps.length; i += 4) {
                long swap = fps[i];
                fps[i] = fps[i + 1];
                fps[i + 1] = swap;
            }
            insertInBatches(index, ids, fps, 1_000);
            assertExact(index, fps, ids, rnd);
        }
    }

    @Test
    void insert_nodeDown_eachOfItsReplicaSetsMarksIt_andTheRestStaysExact() throws IOException {
        java.util.Set<Integer> marked = ConcurrentHashMap.newKeySet();
        try (IndexRouter index = new IndexRouter(replicaSets(node -> {
            marked.add(node);
            return CompletableFuture.completedFuture(null);
        }), Placement.roundRobin(NODES), List.copyOf(clients), 2, false)) {
            down.add(2);
            SplittableRandom rnd = new SplittableRandom(14);
            long[] fps = fingerprints(rnd, 3_000);
            String[] ids = ids(fps.length);
            insertInBatches(index, ids, fps, 1_000);
            assertEquals(java.util.Set.of(2), marked);
            assertExact(index, fps, ids, rnd);
        }
    }

    @Test
    void query_oneGroup_plantedNeighboursMatchBruteForceInOneRoundTrip() throws IOException {
        try (IndexRouter index = new IndexRouter(List.of(node(0)), Placement.roundRobin(1), List.copyOf(clients), 1, false)) {
            SplittableRandom rnd = new SplittableRandom(5);
            long[] probes = new long[50];
            int per = 6;
            long[] fps = new long[probes.length * per + 2_000];
            String[] ids = new String[fps.length];
            for (int q = 0; q < probes.length; q++) {
                probes[q] = rnd.nextLong();
                for (int d = 0; d < per; d++) { // planted at distances 0..5: 0..3 found at 3, 4 and 5 not
                    fps[q * per + d] = BitFlips.flip(probes[q], d, rnd);
                }
            }
            for (int i = probes.length * per; i < fps.length; i++) {
                fps[i] = rnd.nextLong();
            }
            for (int i = 0; i < fps.length; i++) {
                ids[i] = "d" + i;
            }
            index.insert("c", Window.FOREVER, ids, fps);
            calls.clear();
            List<IndexRouter.Nearest> found = index.query("c", Window.FOREVER, probes, 3, 0);
            for (int q = 0; q < probes.length; q++) {
                TreeSet<String> expected = bruteForce(fps, ids, probes[q], 3);
                assertEquals(expected, idsOf(found.get(q)), "probe " + q);
                assertTrue(expected.containsAll(List.of("d" + (q * per), "d" + (q * per + 3))) && !expected.contains("d" + (q * per + 4)));
            }
            assertEquals(1, calls.get("ProbeMany").sum(), "one ProbeMany for the whole batch");
            assertEquals(null, calls.get("ResolveIds"), "the ids came with the probe");
        }
    }

    @Test
    void probeResolving_partitionsAsked_idsUpToLimitOnlyForThose() throws IOException {
        RemoteShardClient shard = node(0);
        long fp = 42;
        shard.bucketAdd("c", 0, 0, new long[]{fp}, true).join();
        shard.attachIds("c", 0, new long[]{fp, fp}, new String[]{"a", "b"}).join();
        byte[] all = new byte[Partitions.COUNT / 8];
        java.util.Arrays.fill(all, (byte) -1);
        Probed probed = shard.probeResolving("c", new long[]{0}, new int[]{0}, new long[][]{{fp}}, new int[]{0}, all, 1).join();
        assertEquals(1, probed.parts()[0][0].fingerprints().length);
        assertEquals(List.of(fp), java.util.Arrays.stream(probed.resolved().fingerprints()).boxed().toList());
        assertEquals(1, probed.ids()[0].ids().length);
        assertEquals(2, probed.ids()[0].total());
        byte[] others = all.clone();
        int p = Partitions.ofFingerprint(fp);
        others[p >>> 3] &= (byte) ~(1 << (p & 7));
        Probed unresolved = shard.probeResolving("c", new long[]{0}, new int[]{0}, new long[][]{{fp}}, new int[]{0}, others, 1).join();
        assertEquals(1, unresolved.parts()[0][0].fingerprints().length);
        assertEquals(0, unresolved.resolved().fingerprints().length);
        assertEquals(0, unresolved.ids().length);
    }

    @Test
    void probeResolving_flipsAndNearest_resolveOnlyEachProbesNearestOverItsNeighbourBuckets() throws IOException {
        RemoteShardClient shard = node(0);
        long probe = 42;
        long flip = 1L << 48; // table 3's block is the top 16 bits: its lowest
        long[] stored = {probe ^ 0b1, probe ^ 0b111, probe ^ flip ^ 0b1}; // 1, 3 and 2 from the probe
        shard.bucketAdd("c", 0, 3, stored, true).join();
        shard.attachIds("c", 0, stored, new String[]{"d1", "d3", "d2"}).join();
        byte[] all = new byte[Partitions.COUNT / 8];
        java.util.Arrays.fill(all, (byte) -1);
        long[][] parts = {{probe}, {probe ^ flip}};
        for (int nearest : new int[]{0, 2}) {
            Probed probed = shard.probeResolving("c", new long[]{0}, new int[]{3, 3}, parts, new int[]{3, 2}, all, 0,
                    new long[]{0, flip}, nearest).join();
            assertEquals(2, probed.parts()[0][0].fingerprints().length);
            assertEquals(1, probed.parts()[1][0].fingerprints().length);
            TreeSet<String> ids = new TreeSet<>();
            for (Ids found : probed.ids()) {
                ids.addAll(List.of(found.ids()));
            }
            assertEquals(nearest == 0 ? new TreeSet<>(List.of("d1", "d2", "d3")) : new TreeSet<>(List.of("d1", "d2")), ids, "nearest " + nearest);
        }
    }

    /**
     * Probes that are all verified are cut to the verification budget's nearest candidates, so the
     * nodes resolve no more than that many of each probe's matches; unverified, all of them.
     */
    @Test
    void query_verifiedProbes_nodesResolveOnlyTheBudgetsNearest() throws IOException {
        try (IndexRouter index = nodeReadRouter(3, n -> true)) {
            SplittableRandom rnd = new SplittableRandom(31);
            long probe = rnd.nextLong();
            java.util.Set<Long> near = new java.util.LinkedHashSet<>();
            while (near.size() < VerificationBudget.FINGERPRINTS + 76) {
                near.add(BitFlips.flip(probe, 6, rnd));
            }
            long[] fps = near.stream().mapToLong(Long::longValue).toArray();
            insertInBatches(index, ids(fps.length), fps, 2_000);
            SketchRule rule = new SketchRule(7, 0.4, Sketcher.DEFAULT);
            IndexRouter.TextChecks checks = new IndexRouter.TextChecks(null, new String[1], rule,
                    new MinHashSketch[]{rule.sketch("a text whose sketch no stored document has")});
            resolvedByNodes.reset();
            index.query("c", Window.FOREVER, new long[]{probe}, 3, 0, checks);
            assertEquals(VerificationBudget.FINGERPRINTS, resolvedByNodes.sum());
            resolvedByNodes.reset();
            assertEquals(fps.length, index.query("c", Window.FOREVER, new long[]{probe}, 7, 0).get(0).hits().size());
            assertEquals(fps.length, resolvedByNodes.sum());
        }
    }

    @Test
    void probeResolving_bitmapOfWrongSize_invalidArgument() throws IOException {
        RemoteShardClient shard = node(0);
        CompletionException e = assertThrows(CompletionException.class,
                () -> shard.probeResolving("c", new long[]{0}, new int[]{0}, new long[][]{{42}}, new int[]{3}, new byte[3], 0).join());
        Status status = ((StatusRuntimeException) e.getCause()).getStatus();
        assertEquals(Status.Code.INVALID_ARGUMENT, status.getCode());
        assertEquals("resolve_partitions of 3 bytes, not 0 or 512", status.getDescription());
    }

    @Test
    void batchedCalls_nodeWithoutThem_sentAsSingleCalls() throws IOException {
        RemoteShardClient shard = node(0, Version.UNBATCHED);
        assertEquals(2, shard.bucketAddMany("c", 0, new int[]{0, 1}, new long[][]{{42}, {43}}, new boolean[]{true, true}).join());
        Found[][] found = shard.probeMany("c", new long[]{0}, new int[]{0, 1}, new long[][]{{42}, {42}}, new int[]{0, 0}).join();
        assertEquals(1, found[0][0].fingerprints().length);
        assertEquals(0, found[1][0].fingerprints().length);
    }

    @Test
    void writeIds_nodeWithoutIt_sentAsBindAndAttach() throws IOException {
        RemoteShardClient shard = node(0, Version.UNBATCHED);
        String[] ids = {"a", "b"};
        long[] fps = {1, 1};
        IdWrites first = shard.writeIds("c", 0, ids, fps, ids, fps);
        assertArrayEquals(new boolean[]{false, false}, first.bound().join().present());
        assertArrayEquals(new boolean[]{true, false}, first.attached().join());
        IdWrites second = shard.writeIds("c", 0, new String[]{"a"}, new long[]{2}, new String[]{"c"}, new long[]{1});
        assertArrayEquals(new long[]{1}, second.bound().join().previous());
        assertArrayEquals(new boolean[]{false}, second.attached().join());
        assertEquals(2, calls.get("BindIds").sum());
        assertEquals(2, calls.get("AttachIds").sum());
    }

    @Test
    void writeIds_badIdInOnePart_bothPartsFail_andNothingIsWritten() throws IOException {
        RemoteShardClient shard = node(0);
        IdWrites w = shard.writeIds("c", 0, new String[]{"a"}, new long[]{1}, new String[]{"bad\n"}, new long[]{2});
        for (CompletableFuture<?> part : List.of(w.bound(), w.attached())) {
            CompletionException e = assertThrows(CompletionException.class, part::join);
            assertEquals(Status.Code.INVALID_ARGUMENT, ((StatusRuntimeException) e.getCause()).getStatus().getCode());
        }
        assertEquals(0, shard.resolveIds("c", new long[]{0, 0}, new long[]{1, 2}, 0).join()[0].total());
        assertArrayEquals(new boolean[]{false}, shard.bindIds("c", 0, new String[]{"a"}, new long[]{3}).join().present(), "a was not bound");
    }

    @Test
    void bucketAddMany_oneBadTable_invalidArgumentAndNothingWritten() throws IOException {
        RemoteShardClient shard = node(0);
        CompletionException e = assertThrows(CompletionException.class, () -> shard.bucketAddMany("c", 0, new int[]{0, 4},
                new long[][]{{42}, {42}}, new boolean[]{true, true}).join());
        assertEquals(Status.Code.INVALID_ARGUMENT, ((StatusRuntimeException) e.getCause()).getStatus().getCode());
        Found[][] found = shard.probeMany("c", new long[]{0}, new int[]{0}, new long[][]{{42}}, new int[]{0}).join();
        assertEquals(0, found[0][0].fingerprints().length);
    }

    @Test
    void probeMany_maxDistanceAboveTwelve_invalidArgument() throws IOException {
        RemoteShardClient shard = node(0);
        CompletionException e = assertThrows(CompletionException.class,
                () -> shard.probeMany("c", new long[]{0}, new int[]{0, 1}, new long[][]{{42}, {42}}, new int[]{3, 13}).join());
        Status status = ((StatusRuntimeException) e.getCause()).getStatus();
        assertEquals(Status.Code.INVALID_ARGUMENT, status.getCode());
        assertEquals("max_distance 13 above 12", status.getDescription());
    }

    private static TreeSet<String> bruteForce(long[] fps, String[] ids, long probe, int k) {
        TreeSet<String> out = new TreeSet<>();
        for (int i = 0; i < fps.length; i++) {
            if (Hamming.distance(fps[i], probe) <= k) {
                out.add(ids[i]);
            }
        }
        return out;
    }

    private static TreeSet<String> idsOf(IndexRouter.Nearest nearest) {
        TreeSet<String> out = new TreeSet<>();
        nearest.hits().forEach(h -> out.add(h.id()));
        return out;
    }

    /**
     * A call that locked x's keys on replica sets of remote nodes, left its intent over gRPC and
     * died before writing: once its lease ends, the next Dedup near x stores x first, is x's
     * duplicate, and settles the intent on every node; x's retry then finds it stored.
     */
    @Test
    void dedup_replicaSetsOfRemoteNodes_aHolderDeadAfterItsIntent_isCompletedByTheNextCallNearIt() throws Exception {
        List<ShardClient> groups = replicaSets(node -> CompletableFuture.completedFuture(null));
        Placement placement = Placement.roundRobin(NODES);
        try (IndexRouter index = new IndexRouter(groups, placement, List.copyOf(clients), 2, false)) {
            long x = new SplittableRandom(3).nextLong();
            long y = x ^ 0b101L;
            byte[] docs = ShardIntentDocs.newBuilder().addIds("x").addFingerprints(x).addStored("").addHasStored(false).build().toByteArray();
            long token = 77;
            for (int t = 0; t < BlockTables.TABLES; t++) {
                int block = BlockTables.block(x, t);
                ShardClient group = groups.get(placement.ownerOfBucket(t, block));
                int[] key = {BlockTables.bucketKey(t, block)};
                long stamp = group.lockBuckets("c", key, token, 300, 1_000).join().stamp();
                assertEquals(1, group.recordIntent("c", key, token, stamp + 1, docs).join());
            }

            IndexRouter.Decision decision = index.dedup("c", Window.FOREVER, new String[]{"y"}, new long[]{y}, 3).get(0);
            assertEquals(false, decision.inserted());
            assertEquals(List.of("x"), decision.duplicates().stream().map(IndexRouter.Hit::id).toList());
            assertEquals(NODES, calls.get("SettleIntents").sum(), "settled on every node");
            for (int t = 0; t < BlockTables.TABLES; t++) {
                int block = BlockTables.block(x, t);
                ShardClient group = groups.get(placement.ownerOfBucket(t, block));
                int[] key = {BlockTables.bucketKey(t, block)};
                assertEquals(List.of(), group.lockBuckets("c", key, 78, 60_000, 1_000).join().pending(), "table " + t);
                group.unlockBuckets("c", key, 78, 0).join();
            }
            assertTrue(index.dedup("c", Window.FOREVER, new String[]{"x"}, new long[]{x}, 3).get(0).inserted(), "x's retry finds it stored");
        }
    }
}
