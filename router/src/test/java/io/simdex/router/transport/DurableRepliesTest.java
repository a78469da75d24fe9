package io.simdex.router.transport;

import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.stub.StreamObserver;
import io.simdex.proto.v1.InsertRequest;
import io.simdex.proto.v1.InsertResponse;
import io.simdex.proto.v1.QueryRequest;
import io.simdex.proto.v1.QueryResponse;
import io.simdex.proto.v1.SimdexGrpc;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A write's answer waits for the durability barrier; a read's does not; a failed barrier fails the write. */
class DurableRepliesTest {
    private final AtomicInteger barriers = new AtomicInteger();
    private final CountDownLatch entered = new CountDownLatch(1);
    private final CountDownLatch release = new CountDownLatch(1);
    private volatile boolean failing;
    private Server server;
    private ManagedChannel channel;

    private final SimdexGrpc.SimdexImplBase service = new SimdexGrpc.SimdexImplBase() {
        @Override
        public void insert(InsertRequest req, StreamObserver<InsertResponse> out) {
            out.onNext(InsertResponse.newBuilder().setInserted(1).build());
            out.onCompleted();
        }

        @Override
        public void query(QueryRequest req, StreamObserver<QueryResponse> out) {
            out.onNext(QueryResponse.getDefaultInstance());
            out.onCompleted();
        }
    };

    private SimdexGrpc.SimdexBlockingStub start() throws IOException {
        Runnable barrier = () -> {
            barriers.incrementAndGet();
            entered.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (failing) {
                throw new UncheckedIOException(new IOException("injected force failure"));
            }
        };
        String name = InProcessServerBuilder.generateName();
        server = InProcessServerBuilder.forName(name)
                .addService(ServerInterceptors.intercept(service, new DurableReplies(barrier, DurableReplies.SIMDEX_READS)))
                .build().start();
        channel = InProcessChannelBuilder.forName(name).build();
        return SimdexGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS);
    }

    @AfterEach
    void tearDown() {
        release.countDown();
        channel.shutdownNow();
        server.shutdownNow();
    }

    @Test
    void insert_barrierHeld_answersOnlyAfterIt() throws Exception {
        SimdexGrpc.SimdexBlockingStub stub = start();
        CompletableFuture<InsertResponse> reply = CompletableFuture.supplyAsync(() -> stub.insert(InsertRequest.getDefaultInstance()));
        assertTrue(entered.await(30, TimeUnit.SECONDS), "the insert never reached the barrier");
        assertFalse(reply.isDone(), "answered while the barrier was held");
        release.countDown();
        assertEquals(1, reply.get(30, TimeUnit.SECONDS).getInserted());
        assertEquals(1, barriers.get());
    }

    @Test
    void query_passesWithoutBarrier() throws Exception {
        SimdexGrpc.SimdexBlockingStub stub = start();
        assertEquals(QueryResponse.getDefaultInstance(), stub.query(QueryRequest.getDefaultInstance()));
        assertEquals(0, barriers.get());
    }

    @Test
    void insert_barrierFails_internalErrorNotAnAnswer() throws Exception {
        SimdexGrpc.SimdexBlockingStub stub = start();
        failing = true;
        release.countDown();
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> stub.insert(InsertRequest.getDefaultInstance()));
        assertEquals(Status.Code.INTERNAL, e.getStatus().getCode());
        assertTrue(e.getStatus().getDescription().contains("not durable"), e.getStatus().getDescription());
    }
}
