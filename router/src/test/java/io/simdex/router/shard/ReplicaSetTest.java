package io.simdex.router.shard;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.simdex.server.ShardNode;
import io.simdex.server.store.StoreSizing;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ReplicaSetTest {
    @TempDir
    Path dir;

    private final List<ShardNode> nodes = new ArrayList<>();

    @AfterEach
    void close() {
        nodes.forEach(ShardNode::close);
    }

    private ShardClient replica(String name) {
        ShardNode n = new ShardNode(dir.resolve(name), c -> StoreSizing.forShare(10_000, 1, 8));
        nodes.add(n);
        return new LocalShardClient(n);
    }

    /** Every call fails with {@code code}; counts calls. */
    private static ShardClient failing(Status.Code code, AtomicInteger calls) {
        return (ShardClient) Proxy.newProxyInstance(ShardClient.class.getClassLoader(), new Class<?>[]{ShardClient.class}, (p, m, args) -> {
            if (m.getName().equals("close")) {
                return null;
            }
            calls.incrementAndGet();
            return CompletableFuture.failedFuture(Status.fromCode(code).withDescription("fake").asRuntimeException());
        });
    }

    private static ReplicaSet set(List<ShardClient> serving, List<ShardClient> incoming, int w) {
        int[] s = java.util.stream.IntStream.range(0, serving.size()).toArray();
        int[] i = java.util.stream.IntStream.range(serving.size(), serving.size() + incoming.size()).toArray();
        return new ReplicaSet(serving, s, incoming, i, w, n -> true);
    }

    private static Status.Code codeOf(Runnable r) {
        CompletionException e = assertThrows(CompletionException.class, r::run);
        return Status.fromThrowable(e.getCause()).getCode();
    }

    @Test
    void read_failsOverOnUnavailable_toTheNextReplica() {
        ShardClient good = replica("a");
        good.bucketAdd("c", 0, 1, new long[]{42}, true).join();
        AtomicInteger calls = new AtomicInteger();
        ReplicaSet set = set(List.of(failing(Status.Code.UNAVAILABLE, calls), good), List.of(), 1);
        Found[] found = set.probe("c", new long[]{0}, 1, new long[]{42}, 0).join();
        assertArrayEquals(new long[]{42}, found[0].fingerprints());
        assertEquals(1, calls.get());
    }

    @Test
    void read_doesNotFailOverOnTheRequestsOwnError() {
        AtomicInteger calls = new AtomicInteger();
        ReplicaSet set = set(List.of(failing(Status.Code.INVALID_ARGUMENT, calls), replica("a")), List.of(), 1);
        assertEquals(Status.Code.INVALID_ARGUMENT, codeOf(() -> set.probe("c", new long[]{0}, 1, new long[]{42}, 0).join()));
    }

    @Test
    void write_reachesEveryReplica_andNeedsTheQuorum() {
        ShardClient a = replica("a");
        ShardClient b = replica("b");
        AtomicInteger calls = new AtomicInteger();
        ShardClient down = failing(Status.Code.UNAVAILABLE, calls);
        set(List.of(a, b), List.of(), 2).bucketAdd("c", 0, 0, new long[]{7}, true).join();
        assertEquals(1, a.probe("c", new long[]{0}, 0, new long[]{7}, 0).join()[0].fingerprints().length);
        assertEquals(1, b.probe("c", new long[]{0}, 0, new long[]{7}, 0).join()[0].fingerprints().length);

        set(List.of(a, down), List.of(), 1).bucketAdd("c", 0, 0, new long[]{8}, true).join(); // W=1: one is enough
        Status.Code code = codeOf(() -> set(List.of(a, down), List.of(), 2).bucketAdd("c", 0, 0, new long[]{9}, true).join());
        assertEquals(Status.Code.UNAVAILABLE, code);
    }

    @Test
    void write_failsWhenAnIncomingReplicaMissesIt() {
        AtomicInteger calls = new AtomicInteger();
        ReplicaSet set = set(List.of(replica("a")), List.of(failing(Status.Code.UNAVAILABLE, calls)), 1);
        assertEquals(Status.Code.UNAVAILABLE, codeOf(() -> set.bucketAdd("c", 0, 0, new long[]{7}, true).join()));
        assertEquals(1, calls.get());
    }

    @Test
    void attach_saysNewOnlyIfNoReplicaKnewTheFingerprint() {
        ShardClient a = replica("a");
        ShardClient b = replica("b");
        a.attachIds("c", 0, new long[]{5}, new String[]{"x"}).join(); // b missed this write
        boolean[] fresh = set(List.of(b, a), List.of(), 1).attachIds("c", 0, new long[]{5}, new String[]{"y"}).join();
        assertArrayEquals(new boolean[]{false}, fresh);
    }

    @Test
    void locks_skipADownReplicaWithinTheQuorum_andReportTheLargestStamp() {
        ShardClient a = replica("a");
        ShardClient b = replica("b");
        long high = a.lockBuckets("c", new int[]{1}, 1, 1000, 10).join().stamp() + 1_000_000_000L; // above b's stamps too
        a.unlockBuckets("c", new int[]{1}, 1, high).join();
        AtomicInteger calls = new AtomicInteger();
        long stamp = set(List.of(b, failing(Status.Code.UNAVAILABLE, calls), a), List.of(), 2).lockBuckets("c", new int[]{1}, 2, 1000, 10)
                .join().stamp();
        assertEquals(high, stamp);
        StatusRuntimeException e = (StatusRuntimeException) assertThrows(CompletionException.class, () ->
                set(List.of(b, failing(Status.Code.UNAVAILABLE, calls)), List.of(), 2).lockBuckets("c", new int[]{2}, 3, 1000, 10).join()).getCause();
        assertTrue(e.getStatus().getDescription().contains("1 of 2 replicas"), e.getStatus().toString());
    }

    /**
     * With a write quorum of 1 of 2, the intents of a lock are judged by the replicas that
     * answered: the locks need a readable one among them. A replica known to have missed writes
     * may lack an intent the other one holds, and with that one down its empty list must not be
     * taken as the truth.
     */
    @Test
    void locks_onlyOnAReplicaThatMissedWrites_unavailable_withAReadableOne_granted() {
        ShardClient a = replica("a");
        ShardClient b = replica("b");
        AtomicInteger calls = new AtomicInteger();
        ReplicaSet.Behind none = n -> CompletableFuture.completedFuture(null);
        ReplicaSet bBehind = new ReplicaSet(List.of(failing(Status.Code.UNAVAILABLE, calls), b), new int[]{3, 5}, List.of(), new int[0], 1,
                n -> n != 3, n -> false, 0, 0, none);
        StatusRuntimeException e = (StatusRuntimeException) assertThrows(CompletionException.class, () ->
                bBehind.lockBuckets("c", new int[]{1}, 1, 1000, 10).join()).getCause();
        assertEquals(Status.Code.UNAVAILABLE, e.getStatus().getCode());
        assertTrue(e.getStatus().getDescription().contains("missed writes"), e.getStatus().toString());

        ReplicaSet aReadable = new ReplicaSet(List.of(a, b), new int[]{3, 5}, List.of(), new int[0], 1, n -> true, n -> n == 3, 0, 0, none);
        assertEquals(List.of(), aReadable.lockBuckets("c", new int[]{2}, 2, 1000, 10).join().pending());
        ReplicaSet bReadable = new ReplicaSet(List.of(failing(Status.Code.UNAVAILABLE, calls), b), new int[]{3, 5}, List.of(), new int[0], 1,
                n -> n != 3, n -> n == 5, 0, 0, none);
        assertEquals(List.of(), bReadable.lockBuckets("c", new int[]{3}, 3, 1000, 10).join().pending(), "one readable replica is enough");
    }

    @Test
    void locks_returnAnIntentPendingOnAnyReplica_once_withItsStamp() {
        ShardClient a = replica("a");
        ShardClient b = replica("b");
        ShardClient c = replica("c");
        ReplicaSet set = set(List.of(a, b, c), List.of(), 2);
        long first = set.lockBuckets("c", new int[]{1, 2}, 7, 60_000, 10).join().stamp();
        byte[] docs = {1, 2, 3};
        long last = first + 1_000_000_000L;
        assertEquals(2, a.recordIntent("c", new int[]{1, 2}, 7, last, docs).join());
        assertEquals(2, b.recordIntent("c", new int[]{1, 2}, 7, last, docs).join()); // c missed the record
        set.unlockBuckets("c", new int[]{1, 2}, 7, first, true).join();

        Granted granted = set(List.of(c, b, a), List.of(), 2).lockBuckets("c", new int[]{2}, 8, 60_000, 10).join();
        assertEquals(List.of(7L), granted.pending().stream().map(Granted.Intent::token).toList());
        assertArrayEquals(docs, granted.pending().get(0).docs());
        assertEquals(last, granted.stamp(), "numbered after the decisions the intent stands for");
        set.settleIntents("c", new long[]{7}).join();
        set.unlockBuckets("c", new int[]{2}, 8, last).join();
        assertEquals(List.of(), set.lockBuckets("c", new int[]{1, 2}, 9, 60_000, 10).join().pending(), "settled on every replica");
    }

    @Test
    void hedgedRead_asksTheSecondReplica_whenTheFirstStalls() {
        ShardClient good = replica("a");
        good.bucketAdd("c", 0, 1, new long[]{42}, true).join();
        ShardClient stalled = (ShardClient) Proxy.newProxyInstance(ShardClient.class.getClassLoader(), new Class<?>[]{ShardClient.class},
                (p, m, args) -> m.getName().equals("close") ? null : new CompletableFuture<>());
        ReplicaSet hedged = new ReplicaSet(List.of(stalled, good), new int[]{0, 1}, List.of(), new int[0], 1, n -> true, n -> true, 20, 0, n -> CompletableFuture.completedFuture(null));
        assertArrayEquals(new long[]{42}, hedged.probe("c", new long[]{0}, 1, new long[]{42}, 0).orTimeout(5, java.util.concurrent.TimeUnit.SECONDS)
                .join()[0].fingerprints());
        ReplicaSet plain = new ReplicaSet(List.of(stalled, good), new int[]{0, 1}, List.of(), new int[0], 1, n -> true, n -> true, 0, 0, n -> CompletableFuture.completedFuture(null));
        assertThrows(CompletionException.class, () -> plain.probe("c", new long[]{0}, 1, new long[]{42}, 0)
                .orTimeout(300, java.util.concurrent.TimeUnit.MILLISECONDS).join(), "without hedging the stalled replica holds the read");
    }

    @Test
    void aReplicaThatFailsAnAcknowledgedWrite_isReportedBehind() {
        AtomicInteger calls = new AtomicInteger();
        List<Integer> behind = new ArrayList<>();
        ReplicaSet set = new ReplicaSet(List.of(replica("a"), failing(Status.Code.DEADLINE_EXCEEDED, calls)), new int[]{4, 7}, List.of(),
                new int[0], 1, n -> true, n -> true, 0, 0, recording(behind));
        set.bindIds("c", 0, new String[]{"x"}, new long[]{1}).join();
        assertEquals(List.of(7), behind);
        set.probe("c", new long[]{0}, 0, new long[]{1}, 0).join(); // reads report nothing
        assertEquals(List.of(7), behind);
    }

    @Test
    void write_waitsForEveryLiveReplica_soReadsAfterItSeeIt() {
        CompletableFuture<Integer> slow = new CompletableFuture<>();
        ShardClient stalled = (ShardClient) Proxy.newProxyInstance(ShardClient.class.getClassLoader(), new Class<?>[]{ShardClient.class},
                (p, m, args) -> m.getName().equals("close") ? null : slow);
        List<Integer> behind = new ArrayList<>();
        ReplicaSet set = new ReplicaSet(List.of(replica("a"), stalled), new int[]{0, 1}, List.of(), new int[0], 1, n -> true, n -> true, 0, 0,
                recording(behind));
        CompletableFuture<Integer> write = set.bucketAdd("c", 0, 0, new long[]{3}, true);
        assertThrows(CompletionException.class, () -> write.copy().orTimeout(300, java.util.concurrent.TimeUnit.MILLISECONDS).join(),
                "not acknowledged while a live replica is still applying it");
        slow.completeExceptionally(Status.DEADLINE_EXCEEDED.asRuntimeException());
        assertEquals(List.of(1), behind, "the replica that timed out is reported behind");
    }

    /** Marks that are durable at once, recorded in {@code marked}. */
    private static ReplicaSet.Behind recording(List<Integer> marked) {
        return n -> {
            marked.add(n);
            return CompletableFuture.completedFuture(null);
        };
    }

    /** Every call answers with {@code answer} (complete it to answer). */
    private static ShardClient answering(CompletableFuture<?> answer) {
        return (ShardClient) Proxy.newProxyInstance(ShardClient.class.getClassLoader(), new Class<?>[]{ShardClient.class},
                (p, m, args) -> m.getName().equals("close") ? null : answer);
    }

    /** Two serving replicas (nodes 3 and 5), write quorum 1, marks answered by {@code behind}. */
    private static ReplicaSet twoReplicas(ShardClient a, ShardClient b, long graceMillis, ReplicaSet.Behind behind) {
        return new ReplicaSet(List.of(a, b), new int[]{3, 5}, List.of(), new int[0], 1, n -> true, n -> true, 0, graceMillis, behind);
    }

    @Test
    void write_replicaFails_notAcknowledgedUntilItsMarkIsDurable() {
        CompletableFuture<Integer> a = new CompletableFuture<>();
        CompletableFuture<Integer> b = new CompletableFuture<>();
        CompletableFuture<Void> durable = new CompletableFuture<>();
        List<Integer> marked = new ArrayList<>();
        CompletableFuture<Integer> write = twoReplicas(answering(a), answering(b), 0, n -> {
            marked.add(n);
            return durable;
        }).bucketAdd("c", 0, 0, new long[]{3}, true);
        a.complete(1);
        b.completeExceptionally(Status.UNAVAILABLE.asRuntimeException());
        assertEquals(List.of(5), marked, "the replica that failed is marked");
        assertFalse(write.isDone(), "acknowledged before the mark was durable");
        durable.complete(null);
        assertEquals(1, write.join());
    }

    @Test
    void write_markCannotBeMadeDurable_unavailableNotOk() {
        CompletableFuture<Integer> b = new CompletableFuture<>();
        CompletableFuture<Integer> write = twoReplicas(answering(CompletableFuture.completedFuture(1)), answering(b), 0,
                n -> CompletableFuture.failedFuture(new java.util.concurrent.TimeoutException("no Raft quorum"))).bucketAdd("c", 0, 0, new long[]{3}, true);
        b.completeExceptionally(Status.DEADLINE_EXCEEDED.asRuntimeException());
        StatusRuntimeException e = (StatusRuntimeException) assertThrows(CompletionException.class, write::join).getCause();
        assertEquals(Status.Code.UNAVAILABLE, e.getStatus().getCode());
        assertTrue(e.getStatus().getDescription().contains("[5] missed it") && e.getStatus().getDescription().contains("retrying it is safe"),
                e.getStatus().getDescription());
    }

    @Test
    void write_everyReplicaAnswers_marksNothing_evenWithAGrace() {
        ReplicaSet.Behind none = n -> {
            throw new AssertionError("marked " + n);
        };
        ShardClient a = replica("a");
        ShardClient b = replica("b");
        for (int i = 0; i < 20; i++) {
            twoReplicas(a, b, 10_000, none).bucketAdd("c", 0, 0, new long[]{i}, true).orTimeout(5, java.util.concurrent.TimeUnit.SECONDS).join();
        }
        for (long i = 0; i < 20; i++) {
            assertArrayEquals(new long[]{i}, b.probe("c", new long[]{0}, 0, new long[]{i}, 0).join()[0].fingerprints(), "both replicas have " + i);
        }
    }

    @Test
    void write_replicaLateBeyondTheGrace_isMarked_thenTheWriteIsAcknowledged() {
        CompletableFuture<Integer> late = new CompletableFuture<>();
        CompletableFuture<Integer> markedNode = new CompletableFuture<>();
        CompletableFuture<Void> durable = new CompletableFuture<>();
        CompletableFuture<Integer> write = twoReplicas(answering(CompletableFuture.completedFuture(1)), answering(late), 20, n -> {
            assertTrue(markedNode.complete(n), "marked once");
            return durable;
        }).bucketAdd("c", 0, 0, new long[]{3}, true);
        assertEquals(5, markedNode.orTimeout(10, java.util.concurrent.TimeUnit.SECONDS).join(), "the late replica is marked");
        assertFalse(write.isDone(), "acknowledged before the late replica's mark was durable");
        durable.complete(null);
        assertEquals(1, write.orTimeout(5, java.util.concurrent.TimeUnit.SECONDS).join());
        late.completeExceptionally(Status.DEADLINE_EXCEEDED.asRuntimeException()); // its answer after the decision changes nothing
    }

    @Test
    void write_graceStartsOnlyOnceTheQuorumHasIt() {
        CompletableFuture<Integer> first = new CompletableFuture<>();
        CompletableFuture<Integer> second = new CompletableFuture<>();
        List<Integer> marked = new ArrayList<>();
        ReplicaSet set = new ReplicaSet(List.of(answering(first), answering(second)), new int[]{3, 5}, List.of(), new int[0], 2,
                n -> true, n -> true, 0, 1, recording(marked));
        CompletableFuture<Integer> write = set.bucketAdd("c", 0, 0, new long[]{3}, true);
        first.complete(1);
        assertThrows(CompletionException.class, () -> write.copy().orTimeout(300, java.util.concurrent.TimeUnit.MILLISECONDS).join(),
                "with W=2 a write one replica has is not acknowledged, however long the other takes");
        second.complete(1);
        assertEquals(1, write.join());
        assertEquals(List.of(), marked);
    }
}
