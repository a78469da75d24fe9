package io.simdex.server;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import io.simdex.proto.v1.ShardBucketRequest;
import io.simdex.proto.v1.ShardCountResponse;
import io.simdex.server.store.DiskSpace;
import io.simdex.server.store.NoRoomException;
import io.simdex.server.wal.GatedChannels;
import io.simdex.server.wal.WriteAheadLog;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/** With {@link Durability#FSYNC} a write is acknowledged only after a force covered its log record. */
class DurableWritesTest {
    /**
     * How long a condition may take before the test fails: a bound on hangs, not a timing. A
     * first write creates the store's map files, which took over 10 s on a 2-core machine at
     * load average 50.
     */
    private static final long DEADLINE_MS = 60_000;

    @TempDir
    Path dir;
    private final GatedChannels channels = new GatedChannels();
    private ShardNode node;

    @AfterEach
    void tearDown() {
        channels.releaseForces();
        if (node != null) {
            node.close();
        }
    }

    private ShardNode open() {
        return new ShardNode(dir, c -> TestShard.SIZING, Durability.FSYNC, channels, WriteAheadLog.SEGMENT_BYTES);
    }

    @Test
    void bucketAdds_whileAForceIsHeld_leaveTheirThreadsAtOnce_andAreAnsweredOnlyOnceAForceCoversThem() throws Exception {
        node = open();
        ExecutorService replies = Executors.newSingleThreadExecutor(r -> new Thread(r, "test-replies"));
        try {
            ShardService service = new ShardService(node, NodeState.standalone(), StreamedRequests.NONE, replies);
            channels.holdForces();
            Reply first = new Reply();
            handle(() -> service.bucketAdd(request(1), first));
            await(() -> channels.forcesEntered.get() >= 1, "the syncer to start a force");
            // The handler thread is free while the force is held: a second write is taken meanwhile.
            Reply second = new Reply();
            handle(() -> service.bucketAdd(request(2), second));
            assertEquals(2, node.stats("c", 0).bucketEntries());
            assertFalse(first.done.isDone(), "acknowledged while its log record's force was held");
            assertFalse(second.done.isDone(), "acknowledged while its log record's force was held");

            channels.releaseForces();
            assertEquals(1, first.done.get(DEADLINE_MS, TimeUnit.MILLISECONDS).getChanged());
            assertEquals(1, second.done.get(DEADLINE_MS, TimeUnit.MILLISECONDS).getChanged());
            assertEquals(channels.written.get(), channels.forced.get(), "a reply came before a force covered its record");
            assertEquals("test-replies", first.thread, "the answer is sent by the service's replies executor");
        } finally {
            replies.shutdownNow();
        }
    }

    /** Runs a handler as gRPC would, on a thread of its own, and fails if it does not return. */
    private static void handle(Runnable handler) throws InterruptedException {
        Thread t = new Thread(handler, "test-handler");
        t.start();
        t.join(DEADLINE_MS);
        if (t.isAlive()) {
            t.interrupt();
            fail("the handler's thread waited for the force of its write");
        }
    }

    @Test
    void bucketAdd_forceFails_replyIsAnErrorAndLaterWritesFailToo() throws Exception {
        node = open();
        ShardService service = new ShardService(node);
        assertFalse(node.logFailed());
        channels.fail();
        Reply first = new Reply();
        service.bucketAdd(request(1), first);
        assertEquals(Status.Code.INTERNAL, failure(first).getStatus().getCode());
        assertTrue(node.logFailed(), "simdex_write_log_failed counts this");
        // The reason travels as the status's cause, for the server's CallGuard to log under a request id.
        assertTrue(failure(first).getStatus().getCause().toString().contains("not durable"), failure(first).getStatus().toString());

        Reply second = new Reply();
        service.bucketAdd(request(2), second);
        assertEquals(Status.Code.INTERNAL, failure(second).getStatus().getCode());
    }

    @Test
    void bucketAdd_whoseLogRecordFindsNoRoom_isUnavailable_refusedUpFrontUntilThereIsRoom_thenTakenAndDurable() throws Exception {
        node = open();
        ShardService service = new ShardService(node);
        // The first write makes the store's files; the log then holds its record.
        Reply made = new Reply();
        service.bucketAdd(request(1), made);
        assertEquals(1, made.done.get(DEADLINE_MS, TimeUnit.MILLISECONDS).getChanged());

        channels.noRoomAfter(5);
        Reply cut = new Reply();
        service.bucketAdd(request(2), cut);
        StatusRuntimeException e = failure(cut);
        assertEquals(Status.Code.UNAVAILABLE, e.getStatus().getCode(), e.getStatus().toString());
        assertTrue(e.getStatus().getDescription().startsWith("the data disk is full: cannot write 00000000000000000001.wal"),
                e.getStatus().toString());
        assertTrue(DiskSpace.isShort());
        // Refused before anything is written while the disk stays full (the router asks first).
        assertThrows(NoRoomException.class, DiskSpace::requireRoom);

        channels.roomAgain();
        // The retry, at most a second after the last, writes a file beside the log.
        await(() -> {
            try {
                DiskSpace.requireRoom();
                return true;
            } catch (NoRoomException stillShort) {
                return false;
            }
        }, "the shortage to end once the disk has room");
        Reply retried = new Reply();
        service.bucketAdd(request(2), retried);
        assertEquals(0, retried.done.get(DEADLINE_MS, TimeUnit.MILLISECONDS).getChanged(), "applied by the refused call already");
        assertEquals(channels.written.get(), channels.forced.get(), "acknowledged before its record was forced");
        assertEquals(2, node.stats("c", 0).bucketEntries());
    }

    @Test
    void awaitDurable_manyConcurrentWriters_shareForces() throws Exception {
        node = open();
        int writers = 32;
        channels.holdForces();
        List<CompletableFuture<Void>> acks = new ArrayList<>();
        for (int i = 0; i < writers; i++) {
            long fp = 1000L + i;
            acks.add(CompletableFuture.runAsync(() -> {
                node.bucketAdd("c", 0, 1, new long[] {fp});
                node.awaitDurable();
            }, runnable -> new Thread(runnable).start()));
        }
        await(() -> channels.writes.get() == writers, "every writer to append");
        assertTrue(acks.stream().noneMatch(CompletableFuture::isDone), "a write was acknowledged while forces were held");
        channels.releaseForces();
        CompletableFuture.allOf(acks.toArray(new CompletableFuture[0])).get(DEADLINE_MS, TimeUnit.MILLISECONDS);
        // The held force covers what had been appended when it began; one more covers the rest.
        assertTrue(channels.forces.get() <= 2, channels.forces.get() + " forces for " + writers + " writes");
        assertEquals(channels.written.get(), channels.forced.get());
    }

    private static ShardBucketRequest request(long fp) {
        return ShardBucketRequest.newBuilder().setCollection("c").setTable(1).addFingerprints(fp).build();
    }

    private static StatusRuntimeException failure(Reply r) throws Exception {
        try {
            r.done.get(DEADLINE_MS, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            return (StatusRuntimeException) e.getCause();
        }
        return fail("the write was acknowledged although its force failed");
    }

    static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DEADLINE_MS);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail("timed out waiting for " + what);
            }
            Thread.sleep(1);
        }
    }

    private static final class Reply implements StreamObserver<ShardCountResponse> {
        final CompletableFuture<ShardCountResponse> done = new CompletableFuture<>();
        private ShardCountResponse value;
        volatile String thread;

        @Override
        public void onNext(ShardCountResponse v) {
            value = v;
        }

        @Override
        public void onError(Throwable t) {
            done.completeExceptionally(t);
        }

        @Override
        public void onCompleted() {
            thread = Thread.currentThread().getName();
            done.complete(value);
        }
    }
}
