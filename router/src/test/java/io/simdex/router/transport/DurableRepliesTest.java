package io.simdex.router.transport;

import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.stub.StreamObserver;
import io.simdex.proto.v1.Document;
import io.simdex.proto.v1.InsertRequest;
import io.simdex.proto.v1.InsertResponse;
import io.simdex.proto.v1.QueryRequest;
import io.simdex.proto.v1.QueryResponse;
import io.simdex.proto.v1.SimdexGrpc;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A write's answer waits for the durability barrier, without holding a handler thread; a read's
 * does not wait; a failed barrier fails the write.
 */
class DurableRepliesTest {
    /** The barriers asked for, in order; each completed by the test. */
    private final BlockingQueue<CompletableFuture<Void>> barriers = new LinkedBlockingQueue<>();
    private final ExecutorService handlers = Executors.newFixedThreadPool(1);
    private final ExecutorService replies = Executors.newSingleThreadExecutor();
    private Server server;
    private ManagedChannel channel;

    private final SimdexGrpc.SimdexImplBase service = new SimdexGrpc.SimdexImplBase() {
        @Override
        public void insert(InsertRequest req, StreamObserver<InsertResponse> out) {
            out.onNext(InsertResponse.newBuilder().setInserted(req.getDocumentsCount()).build());
            out.onCompleted();
        }

        @Override
        public void query(QueryRequest req, StreamObserver<QueryResponse> out) {
            out.onNext(QueryResponse.getDefaultInstance());
            out.onCompleted();
        }
    };

    /** A server whose handlers run on one thread, as the embedded server's do on one core. */
    private SimdexGrpc.SimdexBlockingStub start(Supplier<CompletableFuture<Void>> barrier) throws IOException {
        String name = InProcessServerBuilder.generateName();
        server = InProcessServerBuilder.forName(name).executor(handlers)
                .addService(ServerInterceptors.intercept(service, new DurableReplies(barrier, replies, DurableReplies.SIMDEX_READS)))
                .build().start();
        channel = InProcessChannelBuilder.forName(name).build();
        return SimdexGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS);
    }

    private SimdexGrpc.SimdexBlockingStub start() throws IOException {
        return start(() -> {
            CompletableFuture<Void> f = new CompletableFuture<>();
            barriers.add(f);
            return f;
        });
    }

    @AfterEach
    void tearDown() {
        barriers.forEach(f -> f.complete(null));
        channel.shutdownNow();
        server.shutdownNow();
        handlers.shutdownNow();
        replies.shutdownNow();
    }

    private static InsertRequest insertOf(int documents) {
        InsertRequest.Builder b = InsertRequest.newBuilder();
        for (int i = 0; i < documents; i++) {
            b.addDocuments(Document.newBuilder().setId("d" + i).setFingerprint(i));
        }
        return b.build();
    }

    /** An insert of {@code documents} sent, and the barrier it asked for. */
    private record Held(CompletableFuture<InsertResponse> reply, CompletableFuture<Void> barrier) {
    }

    private Held held(SimdexGrpc.SimdexBlockingStub stub, int documents) throws InterruptedException {
        CompletableFuture<InsertResponse> reply = CompletableFuture.supplyAsync(() -> stub.insert(insertOf(documents)));
        CompletableFuture<Void> barrier = barriers.poll(30, TimeUnit.SECONDS);
        assertNotNull(barrier, "the insert of " + documents + " was not handled (while earlier ones waited for their barriers)");
        return new Held(reply, barrier);
    }

    @Test
    void insert_barrierHeld_answersOnlyAfterIt() throws Exception {
        Held insert = held(start(), 1);
        assertFalse(insert.reply().isDone(), "answered while the barrier was held");
        insert.barrier().complete(null);
        assertEquals(1, insert.reply().get(30, TimeUnit.SECONDS).getInserted());
        assertTrue(barriers.isEmpty(), "one call, one barrier");
    }

    @Test
    void insertsWaitingForTheirBarriers_holdNoHandlerThread() throws Exception {
        SimdexGrpc.SimdexBlockingStub stub = start();
        Held first = held(stub, 1);
        // The one handler thread is free again: a second insert is handled while the first waits.
        Held second = held(stub, 2);
        assertFalse(first.reply().isDone() || second.reply().isDone(), "answered while the barriers were held");
        second.barrier().complete(null);
        assertEquals(2, second.reply().get(30, TimeUnit.SECONDS).getInserted());
        assertFalse(first.reply().isDone(), "answered before its own barrier");
        first.barrier().complete(null);
        assertEquals(1, first.reply().get(30, TimeUnit.SECONDS).getInserted());
    }

    @Test
    void query_passesWithoutBarrier() throws Exception {
        SimdexGrpc.SimdexBlockingStub stub = start();
        assertEquals(QueryResponse.getDefaultInstance(), stub.query(QueryRequest.getDefaultInstance()));
        assertTrue(barriers.isEmpty());
    }

    @Test
    void insert_barrierFails_internalErrorNotAnAnswer() throws Exception {
        SimdexGrpc.SimdexBlockingStub stub = start(() -> CompletableFuture.failedFuture(new UncheckedIOException(new IOException("injected force failure"))));
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> stub.insert(insertOf(1)));
        assertEquals(Status.Code.INTERNAL, e.getStatus().getCode());
        assertTrue(e.getStatus().getDescription().contains("not durable") && e.getStatus().getDescription().contains("injected force failure"),
                e.getStatus().getDescription());
    }

    @Test
    void insert_barrierFailsLater_internalErrorNotAnAnswer() throws Exception {
        Held insert = held(start(), 1);
        insert.barrier().completeExceptionally(new UncheckedIOException(new IOException("injected force failure")));
        ExecutionException e = assertThrows(ExecutionException.class, () -> insert.reply().get(30, TimeUnit.SECONDS));
        Status status = ((StatusRuntimeException) e.getCause()).getStatus();
        assertEquals(Status.Code.INTERNAL, status.getCode());
        assertTrue(status.getDescription().contains("injected force failure"), status.getDescription());
    }
}
