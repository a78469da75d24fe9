package io.simdex.router.clock;

import io.grpc.Channel;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.simdex.proto.v1.CollectionSettings;
import io.simdex.proto.v1.CreateCollectionRequest;
import io.simdex.proto.v1.InsertRequest;
import io.simdex.proto.v1.Probe;
import io.simdex.proto.v1.QueryRequest;
import io.simdex.proto.v1.SimdexGrpc;
import io.simdex.proto.v1.StatsRequest;
import io.simdex.router.Calls;
import io.simdex.router.api.Catalog;
import io.simdex.router.api.SimdexService;
import io.simdex.router.index.IndexRouter;
import io.simdex.router.shard.Placement;
import io.simdex.router.shard.RemoteShardClient;
import io.simdex.router.transport.PublicServer;
import io.simdex.server.NodeState;
import io.simdex.server.ShardControlService;
import io.simdex.server.ShardNode;
import io.simdex.server.ShardService;
import io.simdex.server.store.StoreSizing;
import io.simdex.server.tls.PeerCredentials;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Routers over shard nodes in process: generations follow the nodes' clocks, not a router's. */
class ClusterClockTest {
    private static final long SKEW = 5_000;
    /** 5 generations of a minute: a router 10 minutes ahead would write past every live one and expire them all. */
    private static final CollectionSettings RECENT = CollectionSettings.newBuilder().setRetentionSeconds(300).setGenerationSeconds(60).build();

    @TempDir
    Path dir;

    private final List<ShardNode> nodes = new ArrayList<>();
    private final List<Server> servers = new ArrayList<>();
    private final List<ManagedChannel> channels = new ArrayList<>();
    private final List<PublicServer> routers = new ArrayList<>();
    private final List<ClusterClock> clocks = new ArrayList<>();

    @AfterEach
    void close() {
        clocks.forEach(ClusterClock::close);
        routers.forEach(PublicServer::close);
        channels.forEach(ManagedChannel::shutdownNow);
        servers.forEach(Server::shutdownNow);
        nodes.forEach(ShardNode::close);
    }

    @Test
    void routerClockTenMinutesAhead_writesReadsAndExpiresTheNodesGenerations() throws Exception {
        Map<String, Channel> cluster = nodes(Clock.systemUTC(), Clock.systemUTC(), Clock.systemUTC());
        ClusterClock aheadClock = clock(cluster, Clock.offset(Clock.systemUTC(), Duration.ofMinutes(10)));
        SimdexGrpc.SimdexBlockingStub ahead = router("ahead", cluster, aheadClock);
        SimdexGrpc.SimdexBlockingStub onTime = router("on-time", cluster, clock(cluster, Clock.systemUTC()));
        assertEquals(600_000, aheadClock.localOffsetMillis(), 2 * SKEW, "the router's own clock is 10 minutes ahead of its nodes'");

        long[] fps = new SplittableRandom(7).longs(100).toArray();
        insert(ahead, "a", fps, 0, 50);
        insert(onTime, "b", fps, 50, 100);
        assertFoundAll(onTime, fps, "written by the router 10 minutes ahead, read by the other");
        assertFoundAll(ahead, fps, "written by the other router, read by the one 10 minutes ahead");

        SimdexService aheadService = services.get("ahead");
        assertEquals(0, aheadService.sweepExpired(), "the router ahead expires nothing the nodes' time keeps live");
        assertFoundAll(onTime, fps, "after the sweep of the router 10 minutes ahead");
        assertEquals(100, onTime.stats(StatsRequest.newBuilder().setCollection("recent").build()).getDocuments());
    }

    @Test
    void twoNodesDisagree_retentionRefusedNamingThem_othersServed_thenAgreeAgain() throws Exception {
        AdjustableClock wrong = new AdjustableClock(Duration.ofMinutes(5));
        Map<String, Channel> cluster = nodes(Clock.systemUTC(), wrong);
        ClusterClock clock = clock(cluster, Clock.systemUTC());
        SimdexGrpc.SimdexBlockingStub stub = router("r", cluster, clock);
        stub.createCollection(CreateCollectionRequest.newBuilder().setName("plain").build());

        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> insert(stub, "x", new long[]{1}, 0, 1));
        assertEquals(Status.Code.FAILED_PRECONDITION, e.getStatus().getCode());
        assertTrue(e.getStatus().getDescription().matches(".*node-0 -1(49|50)\\d{3} ms, node-1 \\+1(49|50)\\d{3} ms.*"),
                "each node's offset from their median: " + e.getStatus().getDescription());
        assertTrue(e.getStatus().getDescription().contains("clock.skew.millis=5000"), e.getStatus().getDescription());
        stub.insert(InsertRequest.newBuilder().setCollection("plain").addDocuments(Calls.doc("p", 5)).build());
        assertEquals(1, stub.stats(StatsRequest.newBuilder().setCollection("plain").build()).getDocuments(),
                "a collection without retention needs no time");

        wrong.offset = Duration.ZERO;
        clock.sync();
        insert(stub, "x", new long[]{1}, 0, 1);
        assertFoundAll(stub, new long[]{1}, "once the clocks agree");
    }

    @Test
    void oneNodeOfThreeMinutesAhead_outvoted() throws Exception {
        Map<String, Channel> cluster = nodes(Clock.systemUTC(), Clock.offset(Clock.systemUTC(), Duration.ofMinutes(7)), Clock.systemUTC());
        ClusterClock clock = clock(cluster, Clock.systemUTC());
        assertEquals(0, Duration.between(Instant.now(), clock.instant()).toMillis(), SKEW, "the two nodes that agree set the time");
        SimdexGrpc.SimdexBlockingStub stub = router("r", cluster, clock);
        insert(stub, "x", new long[]{9, 10}, 0, 2);
        assertFoundAll(stub, new long[]{9, 10}, "with one node's clock outvoted");
    }

    @Test
    void update_aMinorityOfNodesCannotMoveTheTime_noAnswerYet_unavailable() {
        ClusterClock clock = clock(Map.of(), Clock.systemUTC());
        StatusRuntimeException none = assertThrows(StatusRuntimeException.class, clock::instant);
        assertEquals(Status.Code.UNAVAILABLE, none.getStatus().getCode());

        long t = 1_700_000_000_000L;
        clock.update(List.of(reading("a", t), reading("b", t + 10), reading("c", t - 10)), 3, List.of(), System.nanoTime());
        assertEquals(t, clock.millis(), 1_000);
        clock.update(List.of(reading("a", t + 3_600_000)), 3, List.of("b: UNAVAILABLE", "c: UNAVAILABLE"), System.nanoTime());
        assertEquals(t, clock.millis(), 1_000, "one node of three answering cannot move the time");
        clock.update(List.of(), 3, List.of(), System.nanoTime());
        assertEquals(t, clock.millis(), 1_000, "without answers the last agreed time runs on");
        clock.update(List.of(reading("a", t + 3_600_000), reading("b", t + 3_600_000)), 3, List.of(), System.nanoTime());
        assertEquals(t + 3_600_000, clock.millis(), 1_000, "two of three agreeing move it");
    }

    private static ClockAgreement.Reading reading(String node, long millis) {
        return new ClockAgreement.Reading(node, millis, 0);
    }

    private final Map<String, SimdexService> services = new LinkedHashMap<>();

    /** Shard nodes node-0.. in process, each telling the time of its clock. */
    private Map<String, Channel> nodes(Clock... nodeClocks) throws Exception {
        Map<String, Channel> out = new LinkedHashMap<>();
        for (int i = 0; i < nodeClocks.length; i++) {
            ShardNode node = new ShardNode(dir.resolve("node-" + i), c -> StoreSizing.forShare(10_000, nodeClocks.length, 16));
            nodes.add(node);
            String name = "clock-test-node-" + i + "-" + System.nanoTime();
            servers.add(InProcessServerBuilder.forName(name).directExecutor().addService(new ShardService(node))
                    .addService(new ShardControlService(node, NodeState.standalone(), PeerCredentials.PLAINTEXT, nodeClocks[i])).build().start());
            ManagedChannel channel = InProcessChannelBuilder.forName(name).directExecutor().build();
            channels.add(channel);
            out.put("node-" + i, channel);
        }
        return out;
    }

    private ClusterClock clock(Map<String, Channel> cluster, Clock own) {
        ClusterClock c = ClusterClock.start(() -> cluster, own, SKEW);
        clocks.add(c);
        return c;
    }

    /** A router of its own (index, catalog) over the shared nodes, with collection "recent" (RECENT). */
    private SimdexGrpc.SimdexBlockingStub router(String name, Map<String, Channel> cluster, ClusterClock clock) {
        List<RemoteShardClient> shards = cluster.values().stream().map(ch -> new RemoteShardClient((ManagedChannel) ch)).toList();
        SimdexService service = new SimdexService(new IndexRouter(shards, Placement.roundRobin(shards.size())),
                new Catalog(dir.resolve("router-" + name)), clock);
        services.put(name, service);
        PublicServer server = PublicServer.start("127.0.0.1", 0, service, SimdexGrpc.SERVICE_NAME);
        routers.add(server);
        ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", server.port()).usePlaintext().build();
        channels.add(channel);
        SimdexGrpc.SimdexBlockingStub stub = SimdexGrpc.newBlockingStub(channel);
        stub.createCollection(CreateCollectionRequest.newBuilder().setName("recent").setSettings(RECENT).build());
        return stub;
    }

    private static void insert(SimdexGrpc.SimdexBlockingStub stub, String prefix, long[] fps, int from, int to) {
        InsertRequest.Builder b = InsertRequest.newBuilder().setCollection("recent");
        for (int i = from; i < to; i++) {
            b.addDocuments(Calls.doc(prefix + i, fps[i]));
        }
        stub.insert(b.build());
    }

    private static void assertFoundAll(SimdexGrpc.SimdexBlockingStub stub, long[] fps, String when) {
        QueryRequest.Builder q = QueryRequest.newBuilder().setCollection("recent");
        for (long fp : fps) {
            q.addProbes(Probe.newBuilder().setFingerprint(fp));
        }
        var results = stub.query(q.build()).getResultsList();
        for (int i = 0; i < fps.length; i++) {
            int n = i;
            assertTrue(results.get(i).getMatchesList().stream().anyMatch(m -> m.getFingerprint() == fps[n] && m.getDistance() == 0),
                    () -> "fingerprint " + n + " not found " + when);
        }
    }

    /** The system clock moved by an offset the test changes. */
    private static final class AdjustableClock extends Clock {
        volatile Duration offset;

        AdjustableClock(Duration offset) {
            this.offset = offset;
        }

        @Override
        public Instant instant() {
            return Instant.now().plus(offset);
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }
    }
}
