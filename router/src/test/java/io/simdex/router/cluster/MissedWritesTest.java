package io.simdex.router.cluster;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.simdex.router.shard.ReplicaSet;
import io.simdex.router.shard.ShardClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Marks against a real Raft group in this JVM: a one-founder group ("node-1") and a router
 * that is only its client, as in a cluster. The tests that keep the group up share one (a
 * group takes seconds to elect its leader) and mark nodes of their own.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MissedWritesTest {
    @TempDir
    static Path dir;

    private final List<AutoCloseable> open = new ArrayList<>();
    private Cluster shared;

    @BeforeAll
    void startShared() throws Exception {
        shared = cluster("shared");
    }

    @AfterAll
    void close() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    private AtomixMember member(Path dir, String id, int atomixPort, int founderPort) throws Exception {
        AtomixMember m = RaftMembers.member(dir, id, atomixPort, founderPort);
        open.add(m);
        return m;
    }

    /** Founder and router members; the router's MissedWrites. */
    private record Cluster(AtomixMember founder, MissedWrites router, MissedWrites node) {
    }

    private Cluster cluster(String name) throws Exception {
        int founderPort = RaftMembers.freePort();
        AtomixMember founder = member(dir.resolve(name), "node-1", founderPort, founderPort);
        AtomixMember router = member(dir.resolve(name), "router-1", RaftMembers.freePort(), founderPort);
        MissedWrites routerSide = new MissedWrites(router.atomix());
        MissedWrites nodeSide = new MissedWrites(founder.atomix());
        open.add(routerSide);
        open.add(nodeSide);
        return new Cluster(founder, routerSide, nodeSide);
    }

    /** Serving replicas of nodes {@code good} and {@code down}, W=1: the first takes every write, the second fails every write. */
    private static ReplicaSet oneGoodOneDown(MissedWrites missed, int good, int down) {
        return new ReplicaSet(List.of(replica(CompletableFuture.completedFuture(1)),
                replica(CompletableFuture.failedFuture(Status.UNAVAILABLE.withDescription("down").asRuntimeException()))), new int[]{good, down}, List.of(), new int[0], 1, n -> true, n -> true, 0, 0,
                n -> missed.mark("node-" + n));
    }

    private static ShardClient replica(CompletableFuture<?> answer) {
        return (ShardClient) Proxy.newProxyInstance(ShardClient.class.getClassLoader(), new Class<?>[]{ShardClient.class},
                (p, m, args) -> m.getName().equals("close") ? null : answer);
    }

    @Test
    void write_withAReplicaDown_isAcknowledgedWithItsMarkAlreadyInTheRaftMap() throws Exception {
        Cluster c = shared;
        assertEquals(-1, c.node().markVersion("node-12"));
        assertEquals(1, oneGoodOneDown(c.router(), 11, 12).bucketAdd("c", 0, 0, new long[]{7}, true).get(30, TimeUnit.SECONDS));
        assertTrue(c.node().markVersion("node-12") >= 0, "the node reads its mark as soon as the write is acknowledged");
        assertEquals(-1, c.node().markVersion("node-11"), "the replica that took it is not marked");
    }

    @Test
    void mark_afterTheNodeReadItsVersion_keepsTheNodeFromClearingIt() throws Exception {
        Cluster c = shared;
        c.router().mark("node-2").get(30, TimeUnit.SECONDS);
        long pulledAt = c.node().markVersion("node-2"); // the node starts catching up from here
        c.router().mark("node-2").get(30, TimeUnit.SECONDS); // a write it missed meanwhile
        assertFalse(c.node().clear("node-2", pulledAt), "a mark made during the pull must survive it");
        long again = c.node().markVersion("node-2");
        assertTrue(again > pulledAt);
        assertTrue(c.node().clear("node-2", again));
        assertEquals(-1, c.node().markVersion("node-2"));
    }

    @Test
    void watching_learnsOfAnotherMembersMarkAndItsClearing_fromEvents() throws Exception {
        Cluster c = shared;
        MissedWrites watcher = new MissedWrites(c.founder().atomix(), java.time.Duration.ofHours(1)).watching(); // no poll: events alone
        open.add(watcher);
        assertFalse(watcher.suspect("node-41"));
        c.router().mark("node-41").get(30, TimeUnit.SECONDS);
        assertTrue(awaitSuspect(watcher, "node-41", true), "the mark's event reached the other member");
        assertTrue(c.node().clear("node-41", c.node().markVersion("node-41")));
        assertTrue(awaitSuspect(watcher, "node-41", false), "and so did its removal");
    }

    @Test
    void clear_leavesATraceEachClearChanges_thatNoWatcherTakesForAMark() throws Exception {
        Cluster c = shared;
        MissedWrites watcher = new MissedWrites(c.founder().atomix(), java.time.Duration.ofMillis(100)).watching(); // polls too
        open.add(watcher);
        assertEquals(-1, c.node().clears("node-43"), "never cleared");
        c.router().mark("node-43").get(30, TimeUnit.SECONDS);
        assertTrue(awaitSuspect(watcher, "node-43", true));
        assertTrue(c.node().clear("node-43", c.node().markVersion("node-43")));
        long first = c.node().clears("node-43");
        assertTrue(first >= 0, "the clear left its trace");
        assertEquals(-1, c.node().markVersion("node-43"), "the trace is no mark");
        assertTrue(awaitSuspect(watcher, "node-43", false));
        for (int polls = 0; polls < 3; polls++) { // the watcher reads the whole map again
            watcher.awaitChange(watcher.changes(), 5000);
        }
        assertFalse(watcher.suspect("node-43") || watcher.suspect(MissedWrites.CLEARED + "node-43"), "nothing suspect after the polls");
        c.router().mark("node-43").get(30, TimeUnit.SECONDS);
        assertTrue(c.node().clear("node-43", c.node().markVersion("node-43")));
        assertTrue(c.node().clears("node-43") > first, "a second mark and clear changed it");
    }

    /** Waits (on the watcher's changes, at most 30 s) until {@code suspect(node)} is {@code expected}; whether it got there. */
    private static boolean awaitSuspect(MissedWrites watcher, String node, boolean expected) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        long seen = watcher.changes();
        while (watcher.suspect(node) != expected && System.nanoTime() < deadline) {
            watcher.awaitChange(seen, 1000);
            seen = watcher.changes();
        }
        return watcher.suspect(node) == expected;
    }

    @Test
    void concurrentMarks_allCommit() throws Exception {
        Cluster c = shared;
        List<CompletableFuture<Void>> marks = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            marks.add(c.router().mark("node-" + (21 + i % 2)));
        }
        CompletableFuture.allOf(marks.toArray(new CompletableFuture<?>[0])).get(30, TimeUnit.SECONDS);
        assertTrue(c.node().markVersion("node-21") >= 0 && c.node().markVersion("node-22") >= 0);
        assertEquals(100L, c.router().reportCounts().get("node-21"));
    }

    @Test
    void write_withAReplicaDown_andNoRaftQuorum_isUnavailableNotAcknowledged() throws Exception {
        Cluster c = cluster("lost");
        c.founder().close(); // the only Raft member: no mark can commit
        open.remove(c.founder());
        CompletableFuture<Integer> write = oneGoodOneDown(c.router(), 1, 2).bucketAdd("c", 0, 0, new long[]{7}, true);
        CompletionException e = assertThrows(CompletionException.class, () -> write.orTimeout(60, TimeUnit.SECONDS).join());
        StatusRuntimeException s = (StatusRuntimeException) e.getCause();
        assertEquals(Status.Code.UNAVAILABLE, s.getStatus().getCode(), s.toString());
        assertTrue(s.getStatus().getDescription().contains("could not be marked behind"), s.getStatus().getDescription());
        assertTrue(c.router().suspect("node-2"), "this router stops reading from it all the same");
    }
}
