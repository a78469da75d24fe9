package io.simdex.router.shard;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RequestMarksTest {
    /** Every call answers with {@code answer}. */
    private static ShardClient answering(CompletableFuture<?> answer) {
        return (ShardClient) Proxy.newProxyInstance(ShardClient.class.getClassLoader(), new Class<?>[]{ShardClient.class},
                (p, m, args) -> m.getName().equals("close") ? null : answer);
    }

    private static final CompletableFuture<Integer> OK = CompletableFuture.completedFuture(1);
    private static final CompletableFuture<Integer> DOWN = CompletableFuture.failedFuture(Status.UNAVAILABLE.withDescription("down").asRuntimeException());

    /** Records suspicions and marks; marks complete with {@code durable}. */
    private static final class Recorder implements ReplicaSet.Behind {
        final List<Integer> suspected = new ArrayList<>();
        final List<Integer> marked = new ArrayList<>();
        final CompletableFuture<Void> durable;

        Recorder(CompletableFuture<Void> durable) {
            this.durable = durable;
        }

        synchronized int markedCount() {
            return marked.size();
        }

        @Override
        public synchronized void suspect(int node) {
            suspected.add(node);
        }

        @Override
        public synchronized CompletableFuture<Void> mark(int node) {
            marked.add(node);
            return durable;
        }
    }

    /** Nodes 3 (takes every write) and 5 (fails every write), W=1. */
    private static ReplicaSet oneDown(ReplicaSet.Behind behind) {
        return new ReplicaSet(List.of(answering(OK), answering(DOWN)), new int[]{3, 5}, List.of(), new int[0], 1, n -> true, n -> true, 0, 0,
                behind);
    }

    @Test
    void phasesInAScope_answerWithoutTheirMarks_thenCloseMarksEachNodeOnce() {
        Recorder behind = new Recorder(new CompletableFuture<>());
        ReplicaSet set = oneDown(behind);
        RequestMarks marks = RequestMarks.open();
        assertEquals(1, set.bucketAdd("c", 0, 0, new long[]{1}, true).join(), "a phase does not wait for Raft");
        set.bindIds("c", 0, new String[]{"x"}, new long[]{1}).join();
        assertEquals(List.of(5, 5), behind.suspected, "each phase stops reads from the replica at once");
        assertEquals(List.of(), behind.marked, "no mark before the request ends");
        CompletableFuture.runAsync(() -> { // makes the mark durable once close asked for it
            while (behind.markedCount() == 0) {
                Thread.onSpinWait();
            }
            behind.durable.complete(null);
        });
        marks.close();
        assertTrue(behind.durable.isDone(), "the request is not answered before its mark is durable");
        assertEquals(List.of(5), behind.marked, "one mark per node per request");
    }

    @Test
    void close_markCannotBeMadeDurable_unavailableNamingTheNode() {
        Recorder behind = new Recorder(CompletableFuture.failedFuture(new java.util.concurrent.TimeoutException("no Raft quorum")));
        RequestMarks marks = RequestMarks.open();
        oneDown(behind).bucketAdd("c", 0, 0, new long[]{1}, true).join();
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, marks::close);
        assertEquals(Status.Code.UNAVAILABLE, e.getStatus().getCode());
        assertTrue(e.getStatus().getDescription().contains("[5] missed it") && e.getStatus().getDescription().contains("retrying it is safe"),
                e.getStatus().getDescription());
    }

    @Test
    void everyReplicaAnswers_closeMarksNothing() {
        Recorder behind = new Recorder(new CompletableFuture<>()); // would never complete
        ReplicaSet set = new ReplicaSet(List.of(answering(OK), answering(OK)), new int[]{3, 5}, List.of(), new int[0], 1, n -> true, n -> true,
                0, 0, behind);
        try (RequestMarks marks = RequestMarks.open()) {
            set.bucketAdd("c", 0, 0, new long[]{1}, true).join();
        }
        assertEquals(List.of(), behind.marked);
        assertEquals(List.of(), behind.suspected);
    }

    @Test
    void writeOutsideAScope_waitsForItsOwnMark() {
        Recorder behind = new Recorder(new CompletableFuture<>());
        CompletableFuture<Integer> write = oneDown(behind).bucketAdd("c", 0, 0, new long[]{1}, true);
        assertEquals(List.of(5), behind.marked);
        assertFalse(write.isDone(), "acknowledged before the mark was durable");
        behind.durable.complete(null);
        assertEquals(1, write.join());
    }

    @Test
    void phaseSettlingAfterItsRequestEnded_waitsForItsOwnMark() {
        Recorder behind = new Recorder(new CompletableFuture<>());
        CompletableFuture<Integer> late = new CompletableFuture<>();
        ReplicaSet set = new ReplicaSet(List.of(answering(OK), answering(late)), new int[]{3, 5}, List.of(), new int[0], 1, n -> true,
                n -> true, 0, 0, behind);
        CompletableFuture<Integer> write;
        try (RequestMarks marks = RequestMarks.open()) {
            write = set.bucketAdd("c", 0, 0, new long[]{1}, true); // the request gives up on it (it failed elsewhere)
        }
        late.completeExceptionally(Status.DEADLINE_EXCEEDED.asRuntimeException());
        assertEquals(List.of(5), behind.marked);
        assertFalse(write.isDone());
        behind.durable.complete(null);
        assertEquals(1, write.join());
    }

    /**
     * An intent is read by the next holder of its keys, not by this request alone: a replica
     * that missed it is marked before the intent's write answers, even in a scope, so that a
     * router killed before its request ends leaves no unmarked replica without the intent.
     */
    @Test
    void intentInAScope_waitsForItsOwnMark_whileOtherPhasesDefer() {
        Recorder behind = new Recorder(new CompletableFuture<>());
        ReplicaSet set = oneDown(behind);
        CompletableFuture<Integer> intent;
        RequestMarks marks = RequestMarks.open();
        try {
            assertEquals(1, set.bucketAdd("c", 0, 0, new long[]{1}, true).join(), "a phase does not wait for Raft");
            assertEquals(List.of(), behind.marked, "the phase's mark waits for the end of the request");
            intent = set.recordIntent("c", new int[]{1}, 7, 9, new byte[]{1});
            assertEquals(List.of(5), behind.marked, "the intent marks the replica that missed it at once");
            assertFalse(intent.isDone(), "the intent answered before the replica that missed it was marked");
            behind.durable.complete(null);
            assertEquals(1, intent.join());
        } finally {
            behind.durable.complete(null); // else close would wait for the mark forever
            marks.close();
        }
    }
}
