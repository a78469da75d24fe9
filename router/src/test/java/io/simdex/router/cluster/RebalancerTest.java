package io.simdex.router.cluster;

import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import io.simdex.core.Partitions;
import io.simdex.proto.v1.MoveProgress;
import io.simdex.proto.v1.NodeStatus;
import io.simdex.proto.v1.NodeStatusRequest;
import io.simdex.proto.v1.PartitionsRequest;
import io.simdex.proto.v1.PlacedNode;
import io.simdex.proto.v1.PullProgress;
import io.simdex.proto.v1.PullRequest;
import io.simdex.proto.v1.SetEpochRequest;
import io.simdex.proto.v1.ShardControlGrpc;
import io.simdex.proto.v1.ShardCountResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A node joining three: the partition map in a real Raft group in this JVM, the four nodes
 * gRPC servers over loopback that answer the rebalancer's control calls (the joining node's
 * pulls report what they were asked to copy, without copying).
 */
class RebalancerTest {
    private static final int SOURCES = 3;

    @TempDir
    Path dir;

    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    @Test
    void join_pullsFromEverySourceAtOnce_thenEveryShareEven() throws Exception {
        Cluster c = cluster(null);
        MoveProgress last = c.rebalancer().addNodeAndWait(c.joining());

        assertTrue(last.getDone(), last.toString());
        assertEquals(SOURCES, c.target().mostPullsAtOnce.get(), "pulls the joining node ran at the same time");
        PartitionMap map = c.store().current();
        int target = map.indexOf("node-4");
        int held = map.partitionsOf(target).length;
        assertEquals(2 * Partitions.COUNT / 4, held, "node-4's share of the 8,192 replicas");
        assertEquals(held, last.getPartitionsDone());
        assertEquals(Set.of(), c.target().dropped, "the joining node dropped nothing");
        for (int p = 0; p < Partitions.COUNT; p++) {
            assertEquals(0, map.incoming(p).length, "partition " + p + " still incoming");
        }
        Set<Integer> movedAway = new HashSet<>();
        c.nodes().subList(0, SOURCES).forEach(n -> movedAway.addAll(n.dropped));
        assertEquals(set(map.partitionsOf(target)), movedAway, "each source dropped exactly what moved off it");
    }

    @Test
    void join_whereOneSourcesPullFails_finishesTheRoundsOthers_abandonsThatOne() throws Exception {
        Cluster c = cluster("node-2");
        PartitionMap before = c.store().current();
        int[] onNode2 = before.partitionsOf(before.indexOf("node-2"));

        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> c.rebalancer().addNodeAndWait(c.joining()));
        assertEquals(Status.Code.UNAVAILABLE, e.getStatus().getCode(), e.toString());
        assertEquals(SOURCES, c.target().mostPullsAtOnce.get(), "the failed pull ran beside the others");

        PartitionMap map = c.store().current();
        int target = map.indexOf("node-4");
        Set<Integer> onTarget = set(map.partitionsOf(target));
        assertTrue(onTarget.size() > 0, "the round's other batches moved");
        for (int p = 0; p < Partitions.COUNT; p++) {
            assertEquals(0, map.incoming(p).length, "partition " + p + " left incoming");
        }
        assertEquals(set(onNode2), set(map.partitionsOf(map.indexOf("node-2"))), "node-2 keeps every partition it had");
        Set<Integer> movedAway = new HashSet<>();
        c.nodes().subList(0, SOURCES).forEach(n -> movedAway.addAll(n.dropped));
        assertEquals(onTarget, movedAway, "the sources dropped what moved, and node-2 nothing");
        assertEquals(Set.of(), c.nodes().get(1).dropped);
        Set<Integer> abandoned = c.target().dropped;
        assertTrue(abandoned.size() > 0, "node-4 dropped its part of the failed batch");
        assertTrue(abandoned.stream().allMatch(p -> set(onNode2).contains(p) && !onTarget.contains(p)), abandoned.toString());
    }

    private static Set<Integer> set(int[] partitions) {
        return Arrays.stream(partitions).boxed().collect(Collectors.toSet());
    }

    /** The map store, the four nodes (node-4 joining) and a rebalancer. */
    private record Cluster(PartitionMapStore store, List<FakeNode> nodes, Joiner rebalancer) {
        FakeNode target() {
            return nodes.get(SOURCES);
        }

        PlacedNode joining() {
            return target().placed;
        }
    }

    /** Rebalancer.addNode, progress kept. */
    private record Joiner(Rebalancer rebalancer) {
        MoveProgress addNodeAndWait(PlacedNode node) {
            List<MoveProgress> seen = new ArrayList<>();
            rebalancer.addNode(node, seen::add);
            return seen.get(seen.size() - 1);
        }
    }

    /** Nodes 1-3 holding the map's partitions at R=2, node-4 up and not placed; pulls from {@code failingSource} fail. */
    private Cluster cluster(String failingSource) throws Exception {
        List<FakeNode> nodes = new ArrayList<>();
        for (int i = 1; i <= SOURCES + 1; i++) {
            FakeNode n = new FakeNode("node-" + i);
            open.add(n);
            nodes.add(n);
        }
        FakeNode target = nodes.get(SOURCES);
        target.failPullsFrom = failingSource == null ? null : nodes.get(Integer.parseInt(failingSource.substring(5)) - 1).placed.getAddress();
        int founderPort = freePort();
        Properties p = new Properties();
        p.setProperty("id", "raft-1");
        p.setProperty("host", "127.0.0.1");
        p.setProperty("port", String.valueOf(freePort()));
        p.setProperty("atomix.port", String.valueOf(founderPort));
        p.setProperty("data", dir.resolve("raft-1").toString());
        p.setProperty("seeds", "raft-1@127.0.0.1:" + founderPort);
        p.setProperty("raft", "raft-1");
        AtomixMember founder = new AtomixMember(ClusterConfig.of(p, "raft-1.properties"), "node", dir.resolve("raft-1").resolve("atomix"), null);
        open.add(founder);
        PartitionMapStore store = new PartitionMapStore(founder.atomix());
        open.add(store);
        store.initializeIfAbsent(PartitionMap.initial(nodes.subList(0, SOURCES).stream().map(n -> n.placed).toList(), 2, 1));
        Set<String> live = nodes.stream().map(n -> n.placed.getId()).collect(Collectors.toSet());
        ClusterView view = new ClusterView(store, () -> live, 0, new MissedWrites(founder.atomix())); // closes its MissedWrites
        open.add(view);
        return new Cluster(store, nodes, new Joiner(new Rebalancer(store, view, () -> live)));
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /**
     * A node's control service: readable, takes epochs, records drops; its pulls wait (up to
     * 20 s) until {@link #SOURCES} run at once, count how many did, and report each partition as
     * one record, or fail when asked to copy from {@link #failPullsFrom}.
     */
    private static final class FakeNode extends ShardControlGrpc.ShardControlImplBase implements AutoCloseable {
        final PlacedNode placed;
        final Set<Integer> dropped = ConcurrentHashMap.newKeySet();
        final AtomicInteger mostPullsAtOnce = new AtomicInteger();
        volatile String failPullsFrom;
        private final AtomicInteger pulling = new AtomicInteger();
        private final Server server;

        FakeNode(String id) throws IOException {
            server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)).addService(this).build().start();
            placed = PlacedNode.newBuilder().setId(id).setAddress("127.0.0.1:" + server.getPort()).build();
        }

        @Override
        public void status(NodeStatusRequest req, StreamObserver<NodeStatus> out) {
            out.onNext(NodeStatus.newBuilder().setNodeId(placed.getId()).setReadable(true).build());
            out.onCompleted();
        }

        @Override
        public void setEpoch(SetEpochRequest req, StreamObserver<NodeStatus> out) {
            out.onNext(NodeStatus.newBuilder().setNodeId(placed.getId()).setEpoch(req.getEpoch()).setReadable(true).build());
            out.onCompleted();
        }

        @Override
        public void dropPartitions(PartitionsRequest req, StreamObserver<ShardCountResponse> out) {
            dropped.addAll(req.getPartitionsList());
            out.onNext(ShardCountResponse.newBuilder().setChanged(req.getPartitionsCount()).build());
            out.onCompleted();
        }

        @Override
        public void pullPartitions(PullRequest req, StreamObserver<PullProgress> out) {
            int now = pulling.incrementAndGet();
            mostPullsAtOnce.accumulateAndGet(now, Math::max);
            try {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (mostPullsAtOnce.get() < SOURCES && System.nanoTime() < deadline) {
                    Thread.sleep(5); // polls a condition: the others of the round arriving
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                pulling.decrementAndGet();
            }
            if (req.getSource().equals(failPullsFrom)) {
                out.onError(Status.UNAVAILABLE.withDescription("source down").asRuntimeException());
                return;
            }
            out.onNext(PullProgress.newBuilder().setRecords(req.getPartitionsCount()).setDone(true).build());
            out.onCompleted();
        }

        @Override
        public void close() throws InterruptedException {
            server.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
        }
    }
}
