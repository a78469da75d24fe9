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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A node joining three, and one of four drained: the partition map in a real Raft group in this
 * JVM, the four nodes gRPC servers over loopback that answer the rebalancer's control calls
 * (a target's pulls report what they were asked to copy, without copying).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RebalancerTest {
    private static final int SOURCES = 3;

    @TempDir
    static Path dir;

    /** The one Raft group of the tests (a group takes seconds to elect its leader): each test's map and marks are its own primitives in it. */
    private AtomixMember founder;
    private final AtomicInteger clusters = new AtomicInteger();
    private final List<AutoCloseable> open = new ArrayList<>();

    @BeforeAll
    void startRaft() throws Exception {
        int founderPort = freePort();
        Properties p = new Properties();
        p.setProperty("id", "raft-1");
        p.setProperty("host", "127.0.0.1");
        p.setProperty("port", String.valueOf(freePort()));
        p.setProperty("atomix.port", String.valueOf(founderPort));
        p.setProperty("data", dir.resolve("raft-1").toString());
        p.setProperty("seeds", "raft-1@127.0.0.1:" + founderPort);
        p.setProperty("raft", "raft-1");
        founder = new AtomixMember(ClusterConfig.of(p, "raft-1.properties"), "node", dir.resolve("raft-1").resolve("atomix"), null);
    }

    @AfterAll
    void stopRaft() throws Exception {
        founder.close();
    }

    @AfterEach
    void close() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
        open.clear();
    }

    @Test
    void join_pullsFromEverySourceAtOnce_thenEveryShareEven() throws Exception {
        Cluster c = cluster(SOURCES, 2, null, SOURCES);
        MoveProgress last = c.rebalancer().addNodeAndWait(c.joining());

        assertTrue(last.getDone(), last.toString());
        assertEquals(SOURCES, c.pulls().most.get(), "pulls the joining node ran at the same time");
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
        Cluster c = cluster(SOURCES, 2, "node-2", SOURCES);
        PartitionMap before = c.store().current();
        int[] onNode2 = before.partitionsOf(before.indexOf("node-2"));

        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> c.rebalancer().addNodeAndWait(c.joining()));
        assertEquals(Status.Code.UNAVAILABLE, e.getStatus().getCode(), e.toString());
        assertEquals(SOURCES, c.pulls().most.get(), "the failed pull ran beside the others");

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

    @Test
    void join_whereOneSourcesPullFails_andANodeRefusesTheSwitchsEpoch_abandonsThatBatchOnTheSwitchedMap() throws Exception {
        Cluster c = cluster(SOURCES, 2, 1, "node-2", SOURCES, Duration.ZERO);
        // node-1 refuses the next epoch after the pulls: the one of the round's switch, which the
        // map already holds. The failed batch must then be abandoned on that map, and the copies
        // the switch replaced kept (a router still routing by the older map may read them).
        FakeNode node1 = c.nodes().get(0);
        c.pulls().during = (source, partitions) -> node1.refuseNextEpoch.set(true);

        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> c.rebalancer().addNodeAndWait(c.joining()));
        assertEquals(Status.Code.UNAVAILABLE, e.getStatus().getCode(), e.toString());
        assertEquals("source down", e.getStatus().getDescription(), e.toString());
        assertFalse(node1.refuseNextEpoch.get(), "node-1 refused an epoch");
        PartitionMap map = c.store().current();
        Set<Integer> onTarget = set(map.partitionsOf(map.indexOf("node-4")));
        assertTrue(onTarget.size() > 0, "the round's other batches moved");
        for (int p = 0; p < Partitions.COUNT; p++) {
            assertEquals(0, map.incoming(p).length, "partition " + p + " left incoming");
        }
        assertEquals(onTarget, c.target().held, "what node-4 keeps: its copy of node-2's batch dropped");
        c.nodes().subList(0, SOURCES).forEach(n -> assertEquals(Set.of(), n.dropped, n.placed.getId() + " dropped a replaced copy"));
    }

    @Test
    void join_whereASourceMissesAWriteDuringItsCopy_abandonsThatBatch_movesTheOthers() throws Exception {
        Cluster c = cluster(SOURCES, 2, null, SOURCES);
        String node2 = c.nodes().get(1).placed.getAddress();
        // A router saw node-2 fail a write its quorum took, while node-2 was being copied.
        c.pulls().during = (source, partitions) -> {
            if (source.equals(node2)) {
                c.missed().mark("node-2").join();
            }
        };
        assertNode2sBatchAbandoned(c);
    }

    @Test
    void join_whereASourceMissesAWriteAndCatchesUpDuringItsCopy_abandonsThatBatch() throws Exception {
        Cluster c = cluster(SOURCES, 2, null, SOURCES);
        String node2 = c.nodes().get(1).placed.getAddress();
        // Marked, then caught up from its peers and cleared, all before its copy ends: the copy
        // may still lack the write, though node-2 is not marked when the copy is checked.
        c.pulls().during = (source, partitions) -> {
            if (source.equals(node2)) {
                c.missed().mark("node-2").join();
                assertTrue(c.missed().clear("node-2", c.missed().markVersion("node-2")));
            }
        };
        assertNode2sBatchAbandoned(c);
        assertEquals(-1, c.missed().markVersion("node-2"), "node-2 was not marked when its copy was checked");
    }

    @Test
    void join_whereASourceIsMarkedAfterItsCopyForAWriteRoutedBefore_waitsForTheMark_abandonsThatBatch() throws Exception {
        Cluster c = cluster(SOURCES, 2, null, SOURCES, Duration.ofSeconds(6));
        String node2 = c.nodes().get(1).placed.getAddress();
        // A write routed by the older map failed on node-2 as its copy began; its router marks
        // node-2 a second later (a write timeout, say), after every pull of the round has ended.
        AtomicLong markedAt = new AtomicLong();
        c.pulls().during = (source, partitions) -> {
            if (source.equals(node2)) {
                CompletableFuture.runAsync(() -> {
                    c.missed().mark("node-2").join();
                    markedAt.set(System.nanoTime());
                }, CompletableFuture.delayedExecutor(1, TimeUnit.SECONDS));
            }
        };
        assertNode2sBatchAbandoned(c);
        assertTrue(markedAt.get() - c.pulls().lastEnded.get() > 0, "node-2 was marked after the round's pulls ended");
    }

    @Test
    void join_whereEveryWriteNeedsEveryReplica_doesNotWaitForLateMarks() throws Exception {
        Cluster c = cluster(SOURCES, 2, 2, null, SOURCES, Duration.ofHours(1));
        MoveProgress last = assertTimeoutPreemptively(Duration.ofMinutes(2), () -> c.rebalancer().addNodeAndWait(c.joining()));
        assertTrue(last.getDone(), last.toString());
        PartitionMap map = c.store().current();
        assertEquals(2048, map.partitionsOf(map.indexOf("node-4")).length, "node-4 took its share");
    }

    @Test
    void join_whoseTargetGoesDownWhileItsRoundsWait_abandonsThemAtOnce() throws Exception {
        Cluster c = cluster(SOURCES, 2, 1, null, SOURCES, Duration.ofMinutes(10));
        // node-4 is reported down while copying: its rounds are not waited for (writes to its
        // incoming partitions fail meanwhile) but abandoned.
        c.pulls().during = (source, partitions) -> c.live().remove("node-4");

        StatusRuntimeException e = assertThrows(StatusRuntimeException.class,
                () -> assertTimeoutPreemptively(Duration.ofMinutes(2), () -> c.rebalancer().addNodeAndWait(c.joining())));
        assertEquals(Status.Code.UNAVAILABLE, e.getStatus().getCode(), e.toString());
        assertTrue(e.getStatus().getDescription().startsWith("node-4, copied to, went down"), e.toString());
        PartitionMap map = c.store().current();
        assertEquals(0, map.partitionsOf(map.indexOf("node-4")).length, "nothing switched to node-4");
        for (int p = 0; p < Partitions.COUNT; p++) {
            assertEquals(0, map.incoming(p).length, "partition " + p + " left incoming");
        }
        c.nodes().subList(0, SOURCES).forEach(n -> assertEquals(Set.of(), n.dropped, n.placed.getId() + " dropped nothing"));
    }

    @Test
    void join_whileANodeCatchesUp_waitsForIt_sayingSoWithTheMovesTotal() throws Exception {
        Cluster c = cluster(SOURCES, 2, null, SOURCES);
        c.nodes().get(1).unreadableFor.set(2);
        List<MoveProgress> seen = c.rebalancer().addNode(c.joining());

        MoveProgress waiting = seen.stream().filter(p -> p.getStage().equals("waiting for node-2 to catch up")).findFirst().orElseThrow(
                () -> new AssertionError("no progress says it waits for node-2: " + seen));
        assertEquals(2048, waiting.getPartitionsTotal(), waiting.toString());
        assertTrue(seen.get(seen.size() - 1).getDone(), seen.get(seen.size() - 1).toString());
        assertTrue(c.nodes().get(1).unreadableFor.get() < 0, "node-2 was asked again once it had caught up");
    }

    @Test
    void join_whereEveryNodeKeepsAnOldCopyOfPartitionsItDoesNotServe_dropsThemAll() throws Exception {
        Cluster c = cluster(SOURCES, 2, null, SOURCES);
        // Drops missed earlier left every node records of every partition: each keeps, at the
        // end, exactly what it serves, and nothing it served was dropped meanwhile.
        c.nodes().forEach(n -> IntStream.range(0, Partitions.COUNT).forEach(n.held::add));
        MoveProgress last = c.rebalancer().addNodeAndWait(c.joining());

        assertTrue(last.getDone(), last.toString());
        PartitionMap map = c.store().current();
        for (FakeNode n : c.nodes()) {
            assertEquals(set(map.partitionsOf(map.indexOf(n.placed.getId()))), n.held, "what " + n.placed.getId() + " keeps");
            assertEquals(Set.of(), n.droppedWhilePlaced, "dropped on " + n.placed.getId() + " while it took their writes");
        }
    }

    @Test
    void join_whoseNextEpochANodeRefuses_abandonsTheRoundsCopiedAndNotSwitched() throws Exception {
        Cluster c = cluster(SOURCES, 2, 1, null, SOURCES, Duration.ofMinutes(10));
        // While the first round copies, node-1 is set to refuse its next epoch: the second
        // round's, pushed while the first waits for late marks. The move fails on no batch of
        // its own; both rounds' copies must be abandoned, not left incoming for the next command.
        FakeNode node1 = c.nodes().get(0);
        c.pulls().during = (source, partitions) -> node1.refuseNextEpoch.compareAndSet(false, true);

        StatusRuntimeException e = assertThrows(StatusRuntimeException.class,
                () -> assertTimeoutPreemptively(Duration.ofMinutes(2), () -> c.rebalancer().addNodeAndWait(c.joining())));
        assertEquals(Status.Code.UNAVAILABLE, e.getStatus().getCode(), e.toString());
        assertEquals("epoch refused", e.getStatus().getDescription());
        assertFalse(node1.refuseNextEpoch.get(), "node-1 refused an epoch");
        PartitionMap map = c.store().current();
        assertEquals(0, map.partitionsOf(map.indexOf("node-4")).length, "nothing switched to node-4");
        for (int p = 0; p < Partitions.COUNT; p++) {
            assertEquals(0, map.incoming(p).length, "partition " + p + " left incoming");
        }
        assertEquals(Set.of(), c.target().held, "node-4 keeps no copy");
        c.nodes().subList(0, SOURCES).forEach(n -> assertEquals(Set.of(), n.dropped, n.placed.getId() + " dropped nothing"));
    }

    @Test
    void join_ofANodeKeepingAnOldCopy_dropsItBeforeThePartitionsAreIncomingThere() throws Exception {
        Cluster c = cluster(SOURCES, 2, null, SOURCES);
        // node-4 keeps records of every partition, left by earlier moves (drops it missed while
        // down): a pull adds to what is there, so what was deleted since would come back, and
        // what it does not receive would stay counted.
        IntStream.range(0, Partitions.COUNT).forEach(c.target().held::add);
        MoveProgress last = c.rebalancer().addNodeAndWait(c.joining());

        assertTrue(last.getDone(), last.toString());
        PartitionMap map = c.store().current();
        Set<Integer> received = set(map.partitionsOf(map.indexOf("node-4")));
        assertEquals(2048, received.size(), "node-4 took its share");
        assertEquals(Partitions.COUNT, c.target().droppedBeforeAPull.size(), "partitions of node-4's old copy dropped before its pulls");
        assertEquals(received, c.target().held, "what node-4 keeps");
        c.nodes().forEach(n -> assertEquals(Set.of(), n.droppedWhilePlaced, "dropped on " + n.placed.getId() + " while it took their writes"));
    }

    @Test
    void join_whoseTargetGoesDownWhileAnotherPullRuns_abandonsItsBatchesWithoutWaitingForThatPull() throws Exception {
        Cluster c = cluster(SOURCES, 2, null, 1);
        // node-4 is reported down while node-1's pull runs, and that pull ends only once node-4's
        // partitions have stopped being incoming (or after 20 s): writes to them fail meanwhile.
        String node1 = c.nodes().get(0).placed.getAddress();
        // Completed by the pull's own thread, which may still be looking when the move has failed.
        CompletableFuture<Boolean> abandonedDuringThePull = new CompletableFuture<>();
        c.pulls().during = (source, partitions) -> {
            if (source.equals(node1)) {
                c.live().remove("node-4");
                abandonedDuringThePull.complete(awaitMap(c.store(), m -> incomingTargets(m).isEmpty(), Duration.ofSeconds(20)));
            }
        };

        StatusRuntimeException e = assertThrows(StatusRuntimeException.class,
                () -> assertTimeoutPreemptively(Duration.ofMinutes(2), () -> c.rebalancer().addNodeAndWait(c.joining())));
        assertEquals(Status.Code.UNAVAILABLE, e.getStatus().getCode(), e.toString());
        assertTrue(e.getStatus().getDescription().startsWith("node-4, copied to, went down"), e.toString());
        assertTrue(abandonedDuringThePull.get(30, TimeUnit.SECONDS), "node-4's partitions stayed incoming until every pull of its round had ended");
        PartitionMap map = c.store().current();
        assertEquals(0, map.partitionsOf(map.indexOf("node-4")).length, "nothing switched to node-4");
        c.nodes().subList(0, SOURCES).forEach(n -> assertEquals(Set.of(), n.dropped, n.placed.getId() + " dropped nothing"));
    }

    /** Whether the map comes to satisfy {@code condition} within {@code wait} (polled). */
    private static boolean awaitMap(PartitionMapStore store, Predicate<PartitionMap> condition, Duration wait) {
        long deadline = System.nanoTime() + wait.toNanos();
        while (System.nanoTime() - deadline < 0) {
            if (condition.test(store.current())) {
                return true;
            }
            try {
                Thread.sleep(20); // polls a condition: the map changing
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return false;
    }

    /** The rebalance onto node-4 fails naming node-2; the round's other batches moved, node-2's is back where it was. */
    private static void assertNode2sBatchAbandoned(Cluster c) {
        PartitionMap before = c.store().current();
        int[] onNode2 = before.partitionsOf(before.indexOf("node-2"));

        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> c.rebalancer().addNodeAndWait(c.joining()));
        assertEquals(Status.Code.UNAVAILABLE, e.getStatus().getCode(), e.toString());
        assertTrue(e.getStatus().getDescription().startsWith("node-2, copied from, missed an acknowledged write"), e.toString());
        PartitionMap map = c.store().current();
        Set<Integer> onTarget = set(map.partitionsOf(map.indexOf("node-4")));
        assertTrue(onTarget.size() > 0, "the round's other batches moved");
        assertEquals(set(onNode2), set(map.partitionsOf(map.indexOf("node-2"))), "node-2 keeps every partition it had");
        assertEquals(Set.of(), c.nodes().get(1).dropped, "node-2 dropped nothing");
        assertTrue(c.target().dropped.stream().allMatch(p -> set(onNode2).contains(p) && !onTarget.contains(p)),
                "node-4 dropped only its copy of node-2's batch: " + c.target().dropped);
        for (int p = 0; p < Partitions.COUNT; p++) {
            assertEquals(0, map.incoming(p).length, "partition " + p + " left incoming");
        }
    }

    @Test
    void drain_copiesEachReplicaFromAnotherReplicaOfItsPartition_fromSeveralNodesAtOnce() throws Exception {
        // R=3 over four nodes: each partition of node-4 goes to the one node that lacks it,
        // copied from one of the two that keep it.
        Cluster c = cluster(SOURCES + 1, 3, null, SOURCES);
        MoveProgress last = c.rebalancer().drainAndWait("node-4");

        assertTrue(last.getDone(), last.toString());
        assertEquals(Partitions.COUNT * 3 / 4, last.getPartitionsDone(), "node-4's share moved");
        assertEquals(SOURCES, c.pulls().most.get(), "pulls running at the same time, on the three targets");
        assertEquals(Set.of(), c.pulls().sources.getOrDefault(c.target().placed.getAddress(), Set.of()), "partitions copied from node-4 itself");
        assertSpreadOverTheOthers(c.store().current(), 3);
        assertEquals(Partitions.COUNT * 3 / 4, c.target().dropped.size(), "node-4 dropped every partition it had");
    }

    @Test
    void drain_ofANodeThatIsDown_copiesFromTheOtherReplicas() throws Exception {
        // R=2 placed round a ring: node-4's partitions have their other replica on node-1 or node-3.
        Cluster c = cluster(SOURCES + 1, 2, null, 2);
        c.live().remove("node-4");
        MoveProgress last = c.rebalancer().drainAndWait("node-4");

        assertTrue(last.getDone(), last.toString());
        assertEquals(Set.of(), c.pulls().sources.getOrDefault(c.target().placed.getAddress(), Set.of()), "partitions copied from node-4, which is down");
        assertEquals(2, c.pulls().most.get(), "pulls running at the same time, from node-1 and node-3");
        assertSpreadOverTheOthers(c.store().current(), 2);
        assertEquals(Set.of(), c.target().dropped, "calls to node-4, which is down");
    }

    @Test
    void drain_whereAReceivingNodeIsDown_movesTheOthersShares_leavesItsOnTheDrainedNode() throws Exception {
        // R=2 over four nodes, node-4 drained while node-3 is down: node-1 and node-2 take their
        // shares; node-3's stays on node-4, and node-3 is sent nothing, not even a clear.
        Cluster c = cluster(SOURCES + 1, 2, null, 2);
        FakeNode node3 = c.nodes().get(2);
        c.live().remove("node-3");
        PartitionMap before = c.store().current();
        int onNode4 = before.partitionsOf(before.indexOf("node-4")).length;

        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> c.rebalancer().drainAndWait("node-4"));
        assertEquals(Status.Code.UNAVAILABLE, e.getStatus().getCode(), e.toString());
        assertTrue(e.getStatus().getDescription().startsWith("node-3, to receive partitions, down: "), e.toString());
        PartitionMap map = c.store().current();
        int left = map.partitionsOf(map.indexOf("node-4")).length;
        assertTrue(left > 0 && left < onNode4, left + " of node-4's " + onNode4 + " partitions left on it");
        assertEquals(before.partitionsOf(before.indexOf("node-3")).length, map.partitionsOf(map.indexOf("node-3")).length, "node-3's share");
        for (int p = 0; p < Partitions.COUNT; p++) {
            assertEquals(0, map.incoming(p).length, "partition " + p + " left incoming");
        }
        assertFalse(node3.pulledInto, "a pull into node-3");
        assertEquals(0, node3.dropCalls.get(), "drops sent to node-3");
        assertEquals(onNode4 - left, c.target().dropped.size(), "node-4 dropped what moved off it");
    }

    @Test
    void drain_whoseTargetGoesDownWhileItsRoundWaitsToSettle_abandonsItsBatchesAtOnce_theOthersStillWait() throws Exception {
        // R=2 over four nodes, node-4 drained, a round switched 10 min after its epoch: once the
        // round is copied and waits, one of its targets is reported down. Its partitions must
        // stop being incoming at once (writes to them fail meanwhile), not when the round ends.
        Cluster c = cluster(SOURCES + 1, 2, 1, null, 1, Duration.ofMinutes(10));
        CompletableFuture<Set<String>> waiting = new CompletableFuture<>();
        Move move = Move.start(() -> c.rebalancer().rebalancer().drain("node-4", p -> {
            if (!waiting.isDone() && p.getStage().startsWith("copied; waiting")) {
                waiting.complete(incomingTargets(c.store().current()));
            }
        }));

        Set<String> targets = waiting.get(1, TimeUnit.MINUTES);
        assertTrue(targets.size() >= 2, "targets incoming while the round waits: " + targets);
        String down = targets.stream().sorted().findFirst().orElseThrow();
        c.live().remove(down);
        assertTrue(awaitMap(c.store(), m -> !incomingTargets(m).contains(down), Duration.ofSeconds(20)), down + "'s partitions stayed incoming");
        Set<String> still = incomingTargets(c.store().current());
        assertEquals(targets.stream().filter(t -> !t.equals(down)).collect(Collectors.toSet()), still,
                "the other targets, still waiting for the round to settle");

        StatusRuntimeException e = move.interruptAndFailure();
        assertEquals(Status.Code.CANCELLED, e.getStatus().getCode(), e.toString());
        assertEquals(Set.of(), incomingTargets(c.store().current()), "targets left incoming by the interrupted drain");
    }

    @Test
    void drain_whoseEarlierRoundsTargetGoesDownWhileALaterRoundCopies_abandonsItsBatchesAtOnce() throws Exception {
        // Rounds switched 10 min after their epochs: while the second round's first pull runs,
        // a target of the first round (waiting to be switched) is reported down, and that pull
        // ends only once its partitions have stopped being incoming (or after 20 s).
        Cluster c = cluster(SOURCES + 1, 2, 1, null, 1, Duration.ofMinutes(10));
        AtomicLong firstEpoch = new AtomicLong(-1);
        Set<String> firstTargets = ConcurrentHashMap.newKeySet();
        AtomicBoolean acted = new AtomicBoolean();
        // Completed by a pull's own thread.
        CompletableFuture<String> wentDown = new CompletableFuture<>();
        CompletableFuture<Boolean> abandonedDuringThePull = new CompletableFuture<>();
        c.pulls().during = (source, partitions) -> {
            PartitionMap now = c.store().current();
            if (firstEpoch.compareAndSet(-1, now.epoch()) || firstEpoch.get() == now.epoch()) {
                firstTargets.addAll(incomingTargets(now));
                return;
            }
            String copyingTo = now.nodes().get(now.incoming(partitions.get(0))[0]).getId();
            String down = firstTargets.stream().filter(t -> !t.equals(copyingTo)).sorted().findFirst().orElse(null);
            if (down != null && acted.compareAndSet(false, true)) {
                c.live().remove(down);
                wentDown.complete(down);
                abandonedDuringThePull.complete(awaitMap(c.store(), m -> !incomingTargets(m).contains(down), Duration.ofSeconds(20)));
            }
        };
        Move move = Move.start(() -> c.rebalancer().rebalancer().drain("node-4", p -> { }));

        String down = wentDown.get(1, TimeUnit.MINUTES);
        assertTrue(abandonedDuringThePull.get(30, TimeUnit.SECONDS), down + "'s partitions stayed incoming while the second round copied");
        StatusRuntimeException e = move.interruptAndFailure();
        assertEquals(Status.Code.CANCELLED, e.getStatus().getCode(), e.toString());
        assertEquals(Set.of(), incomingTargets(c.store().current()), "targets left incoming by the interrupted drain");
    }

    /** The nodes incoming for some partition of {@code map}. */
    private static Set<String> incomingTargets(PartitionMap map) {
        return IntStream.range(0, Partitions.COUNT).flatMap(p -> Arrays.stream(map.incoming(p))).mapToObj(n -> map.nodes().get(n).getId())
                .collect(Collectors.toSet());
    }

    /** A move run on a thread of its own, so that a test can interrupt it. */
    private record Move(Thread thread, CompletableFuture<RuntimeException> outcome) {
        static Move start(Runnable move) {
            CompletableFuture<RuntimeException> outcome = new CompletableFuture<>();
            Thread t = new Thread(() -> {
                try {
                    move.run();
                    outcome.complete(null);
                } catch (RuntimeException e) {
                    outcome.complete(e);
                }
            }, "test-move");
            t.start();
            return new Move(t, outcome);
        }

        /** Interrupts the move and returns how it failed (fails the test if it did not). */
        StatusRuntimeException interruptAndFailure() throws Exception {
            thread.interrupt();
            RuntimeException e = outcome.get(1, TimeUnit.MINUTES);
            if (e instanceof StatusRuntimeException s) {
                return s;
            }
            throw new AssertionError("the interrupted move ended with " + e, e);
        }
    }

    @Test
    void drain_atOneReplica_copiesFromTheDrainedNode_oneBatchAtATime() throws Exception {
        Cluster c = cluster(SOURCES + 1, 1, null, 1);
        PartitionMap before = c.store().current();
        Set<Integer> onNode4 = set(before.partitionsOf(before.indexOf("node-4")));
        MoveProgress last = c.rebalancer().drainAndWait("node-4");

        assertTrue(last.getDone(), last.toString());
        assertEquals(Set.of(c.target().placed.getAddress()), c.pulls().sources.keySet(), "the nodes copied from");
        assertEquals(onNode4, c.pulls().sources.get(c.target().placed.getAddress()));
        assertEquals(1, c.pulls().most.get(), "pulls running at the same time");
        PartitionMap map = c.store().current();
        assertEquals(0, map.partitionsOf(map.indexOf("node-4")).length);
    }

    @Test
    void drain_ofSeveralRounds_copiesEachWhileTheOneBeforeWaitsForLateMarks() throws Exception {
        Cluster c = cluster(SOURCES + 1, 2, 1, null, 1, Duration.ofSeconds(5));
        // At R=2, W=1 a round is switched only 5 s after its epoch: its partitions must still be
        // incoming while the next round copies, not switched before the next begins. Each
        // round's pulls run at its own epoch (the round before is switched 5 s later).
        Map<Long, Set<Integer>> copiedAt = new ConcurrentHashMap<>();
        Map<Long, Set<Integer>> incomingAt = new ConcurrentHashMap<>();
        c.pulls().during = (source, partitions) -> {
            PartitionMap now = c.store().current();
            copiedAt.computeIfAbsent(now.epoch(), e -> ConcurrentHashMap.newKeySet()).addAll(partitions);
            incomingAt.put(now.epoch(), IntStream.range(0, Partitions.COUNT).filter(p -> now.incoming(p).length > 0).boxed()
                    .collect(Collectors.toSet()));
        };
        MoveProgress last = c.rebalancer().drainAndWait("node-4");

        assertTrue(last.getDone(), last.toString());
        List<Long> rounds = copiedAt.keySet().stream().sorted().toList();
        assertTrue(rounds.size() >= 2, "rounds at epochs " + rounds);
        for (int r = 1; r < rounds.size(); r++) {
            Set<Integer> incoming = incomingAt.get(rounds.get(r));
            assertTrue(incoming.containsAll(copiedAt.get(rounds.get(r - 1))), "round " + (r + 1) + " copied while round " + r + " was incoming");
            assertTrue(incoming.containsAll(copiedAt.get(rounds.get(r))));
        }
        PartitionMap map = c.store().current();
        assertEquals(0, map.partitionsOf(map.indexOf("node-4")).length);
        for (int p = 0; p < Partitions.COUNT; p++) {
            assertEquals(0, map.incoming(p).length, "partition " + p + " left incoming");
            assertEquals(2, map.replicas(p).length, "partition " + p);
        }
    }

    /** Every partition at R={@code replication} on nodes 1-3, none incoming, their shares even. */
    private static void assertSpreadOverTheOthers(PartitionMap map, int replication) {
        int node4 = map.indexOf("node-4");
        for (int p = 0; p < Partitions.COUNT; p++) {
            int[] replicas = map.replicas(p);
            assertEquals(replication, replicas.length, "partition " + p);
            assertEquals(replication, Arrays.stream(replicas).distinct().count(), "partition " + p);
            assertTrue(Arrays.stream(replicas).noneMatch(r -> r == node4), "partition " + p + " still on node-4");
            assertEquals(0, map.incoming(p).length, "partition " + p + " still incoming");
        }
        for (String n : List.of("node-1", "node-2", "node-3")) {
            int share = map.partitionsOf(map.indexOf(n)).length;
            assertTrue(Math.abs(share - replication * Partitions.COUNT / 3) <= 1, n + " keeps " + share);
        }
    }

    private static Set<Integer> set(int[] partitions) {
        return Arrays.stream(partitions).boxed().collect(Collectors.toSet());
    }

    /** The map store, the four nodes (node-4 joining or drained), the pulls they ran, the live set and a rebalancer. */
    private record Cluster(PartitionMapStore store, List<FakeNode> nodes, Pulls pulls, Set<String> live, MissedWrites missed,
                           Joiner rebalancer) {
        FakeNode target() {
            return nodes.get(SOURCES);
        }

        PlacedNode joining() {
            return target().placed;
        }
    }

    /** Rebalancer.addNode and drain, progress kept. */
    private record Joiner(Rebalancer rebalancer) {
        MoveProgress addNodeAndWait(PlacedNode node) {
            List<MoveProgress> seen = addNode(node);
            return seen.get(seen.size() - 1);
        }

        /** Every progress message of the join. */
        List<MoveProgress> addNode(PlacedNode node) {
            List<MoveProgress> seen = new ArrayList<>();
            rebalancer.addNode(node, seen::add);
            return seen;
        }

        MoveProgress drainAndWait(String nodeId) {
            List<MoveProgress> seen = new ArrayList<>();
            rebalancer.drain(nodeId, seen::add);
            return seen.get(seen.size() - 1);
        }
    }

    /**
     * Nodes 1-{@code placed} holding the map's partitions at R={@code replication}, the others up
     * and not placed; pulls from {@code failingSource} fail; each pull waits for
     * {@code pullsAtOnce} to run at once.
     */
    private Cluster cluster(int placed, int replication, String failingSource, int pullsAtOnce) throws Exception {
        return cluster(placed, replication, failingSource, pullsAtOnce, Duration.ofMillis(200));
    }

    /** As above, at W=1, with the rebalancer checking a round's sources {@code settle} after its epoch. */
    private Cluster cluster(int placed, int replication, String failingSource, int pullsAtOnce, Duration settle) throws Exception {
        return cluster(placed, replication, 1, failingSource, pullsAtOnce, settle);
    }

    /** As above, at write quorum {@code writeQuorum}. */
    private Cluster cluster(int placed, int replication, int writeQuorum, String failingSource, int pullsAtOnce, Duration settle)
            throws Exception {
        Pulls pulls = new Pulls(pullsAtOnce);
        List<FakeNode> nodes = new ArrayList<>();
        for (int i = 1; i <= SOURCES + 1; i++) {
            FakeNode n = new FakeNode("node-" + i, pulls);
            open.add(n);
            nodes.add(n);
        }
        pulls.failFrom = failingSource == null ? null : nodes.get(Integer.parseInt(failingSource.substring(5)) - 1).placed.getAddress();
        int id = clusters.incrementAndGet();
        PartitionMapStore store = new PartitionMapStore(founder.atomix(), "partition-map-" + id);
        open.add(store);
        store.initializeIfAbsent(PartitionMap.initial(nodes.subList(0, placed).stream().map(n -> n.placed).toList(), replication, writeQuorum));
        PartitionMap initial = store.current();
        for (FakeNode n : nodes) {
            n.map = store::current;
            int at = initial.indexOf(n.placed.getId());
            if (at >= 0) {
                Arrays.stream(initial.partitionsOf(at)).forEach(n.held::add);
            }
        }
        Set<String> live = ConcurrentHashMap.newKeySet();
        nodes.forEach(n -> live.add(n.placed.getId()));
        MissedWrites missed = new MissedWrites(founder.atomix(), "missed-writes-" + id, MissedWrites.SAFETY_POLL);
        ClusterView view = new ClusterView(store, () -> Set.copyOf(live), 0, missed); // closes its MissedWrites
        open.add(view);
        return new Cluster(store, nodes, pulls, live, missed, new Joiner(new Rebalancer(store, view, () -> Set.copyOf(live), settle)));
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /**
     * The pulls of all nodes: how many ran at once at most, the partitions copied from each
     * source address; each waits (up to 20 s) until {@link #atOnce} have run at the same time,
     * and one from {@link #failFrom} fails.
     */
    private static final class Pulls {
        final int atOnce;
        final AtomicInteger most = new AtomicInteger();
        final Map<String, Set<Integer>> sources = new ConcurrentHashMap<>();
        volatile String failFrom;
        /** Called with each pull's source address and partitions while the pull runs. */
        volatile BiConsumer<String, List<Integer>> during = (source, partitions) -> { };
        /** When the last pull ended ({@link System#nanoTime}). */
        final AtomicLong lastEnded = new AtomicLong();
        private final AtomicInteger running = new AtomicInteger();

        Pulls(int atOnce) {
            this.atOnce = atOnce;
        }

        /** Whether the pull from {@code source} of {@code partitions} succeeds, once the others of its round arrived. */
        boolean run(String source, List<Integer> partitions) {
            most.accumulateAndGet(running.incrementAndGet(), Math::max);
            during.accept(source, partitions);
            try {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (most.get() < atOnce && System.nanoTime() < deadline) {
                    Thread.sleep(5); // polls a condition: the others of the round arriving
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                running.decrementAndGet();
                lastEnded.set(System.nanoTime());
            }
            if (source.equals(failFrom)) {
                return false;
            }
            sources.computeIfAbsent(source, k -> ConcurrentHashMap.newKeySet()).addAll(partitions);
            return true;
        }
    }

    /** A node's control service: readable, takes epochs, records drops; its pulls go through {@link Pulls}, a partition a record. */
    private static final class FakeNode extends ShardControlGrpc.ShardControlImplBase implements AutoCloseable {
        final PlacedNode placed;
        /** Partitions the node keeps records of: those placed on it, and those pulled into it, wholly or in part. */
        final Set<Integer> held = ConcurrentHashMap.newKeySet();
        /** DropPartitions calls it got. */
        final AtomicInteger dropCalls = new AtomicInteger();
        /** Partitions dropped that it kept records of. */
        final Set<Integer> dropped = ConcurrentHashMap.newKeySet();
        /** Partitions dropped that it kept records of, before anything was pulled into it. */
        final Set<Integer> droppedBeforeAPull = ConcurrentHashMap.newKeySet();
        /** Partitions dropped while the map had the node as a replica of them or incoming. */
        final Set<Integer> droppedWhilePlaced = ConcurrentHashMap.newKeySet();
        volatile Supplier<PartitionMap> map;
        volatile boolean pulledInto;
        /** Status calls still to answer "not readable" (catching up). */
        final AtomicInteger unreadableFor = new AtomicInteger();
        /** Set: the next SetEpoch fails (UNAVAILABLE "epoch refused"), and this is cleared. */
        final AtomicBoolean refuseNextEpoch = new AtomicBoolean();
        private final Pulls pulls;
        private final Server server;

        FakeNode(String id, Pulls pulls) throws IOException {
            this.pulls = pulls;
            server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)).addService(this).build().start();
            placed = PlacedNode.newBuilder().setId(id).setAddress("127.0.0.1:" + server.getPort()).build();
        }

        @Override
        public void status(NodeStatusRequest req, StreamObserver<NodeStatus> out) {
            out.onNext(NodeStatus.newBuilder().setNodeId(placed.getId()).setReadable(unreadableFor.getAndDecrement() <= 0).build());
            out.onCompleted();
        }

        @Override
        public void setEpoch(SetEpochRequest req, StreamObserver<NodeStatus> out) {
            if (refuseNextEpoch.compareAndSet(true, false)) {
                out.onError(Status.UNAVAILABLE.withDescription("epoch refused").asRuntimeException());
                return;
            }
            out.onNext(NodeStatus.newBuilder().setNodeId(placed.getId()).setEpoch(req.getEpoch()).setReadable(true).build());
            out.onCompleted();
        }

        @Override
        public void dropPartitions(PartitionsRequest req, StreamObserver<ShardCountResponse> out) {
            dropCalls.incrementAndGet();
            PartitionMap now = map.get();
            int me = now.indexOf(placed.getId());
            for (int p : req.getPartitionsList()) {
                if (held.remove(p)) {
                    dropped.add(p);
                    if (!pulledInto) {
                        droppedBeforeAPull.add(p);
                    }
                }
                if (now.isReplica(p, me) || now.isIncoming(p, me)) {
                    droppedWhilePlaced.add(p);
                }
            }
            out.onNext(ShardCountResponse.newBuilder().setChanged(req.getPartitionsCount()).build());
            out.onCompleted();
        }

        @Override
        public void pullPartitions(PullRequest req, StreamObserver<PullProgress> out) {
            pulledInto = true;
            held.addAll(req.getPartitionsList()); // a failed pull keeps what it applied
            if (!pulls.run(req.getSource(), req.getPartitionsList())) {
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
