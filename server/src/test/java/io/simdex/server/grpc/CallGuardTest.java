package io.simdex.server.grpc;

import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import io.simdex.proto.v1.ShardCountResponse;
import io.simdex.proto.v1.ShardDropUrlJobRequest;
import io.simdex.proto.v1.ShardGrpc;
import io.simdex.proto.v1.ShardStatsRequest;
import io.simdex.proto.v1.ShardStatsResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The guard over a real socket: request ids for faults, INVALID_ARGUMENT for bytes that do not parse, a bound on calls in flight. */
class CallGuardTest {
    private static final String SECRET = "secret-path /var/lib/x";
    private final CountDownLatch release = new CountDownLatch(1);
    private final CountDownLatch entered = new CountDownLatch(2);
    private final CallGuard guard = new CallGuard(2);
    private final java.util.concurrent.atomic.AtomicInteger dropCalls = new java.util.concurrent.atomic.AtomicInteger();
    private Server server;
    private ManagedChannel channel;

    /** Stats throws, DropUrlJob holds its caller until released, ExpireGenerations closes with a raw INTERNAL. */
    private final class Faulty extends ShardGrpc.ShardImplBase {
        @Override
        public void stats(ShardStatsRequest req, StreamObserver<ShardStatsResponse> out) {
            throw new IllegalStateException(SECRET);
        }

        @Override
        public void dropUrlJob(ShardDropUrlJobRequest req, StreamObserver<ShardCountResponse> out) {
            dropCalls.incrementAndGet();
            entered.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            out.onNext(ShardCountResponse.getDefaultInstance());
            out.onCompleted();
        }

        @Override
        public void expireGenerations(io.simdex.proto.v1.ShardExpireRequest req, StreamObserver<ShardCountResponse> out) {
            out.onError(Status.INTERNAL.withDescription(SECRET).asRuntimeException());
        }
    }

    private ShardGrpc.ShardBlockingStub start() throws IOException {
        return start(guard);
    }

    private ShardGrpc.ShardBlockingStub start(CallGuard g) throws IOException {
        server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)).intercept(g)
                .addService(ServerBounds.lenient(new Faulty().bindService())).build().start();
        channel = NettyChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext().build();
        return ShardGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS);
    }

    @AfterEach
    void stop() throws InterruptedException {
        release.countDown();
        channel.shutdownNow();
        server.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    }

    @Test
    void handlerException_internalWithRequestIdNotTheExceptionText() throws IOException {
        ShardGrpc.ShardBlockingStub stub = start();
        for (StatusRuntimeException e : List.of(
                assertThrows(StatusRuntimeException.class, () -> stub.stats(ShardStatsRequest.getDefaultInstance())),
                assertThrows(StatusRuntimeException.class, () -> stub.expireGenerations(io.simdex.proto.v1.ShardExpireRequest.getDefaultInstance())))) {
            assertEquals(Status.Code.INTERNAL, e.getStatus().getCode());
            assertTrue(e.getStatus().getDescription().matches("internal error, request id [0-9a-f]{1,16}"), e.getStatus().getDescription());
            assertFalse(e.getMessage().contains("secret"), e.getMessage());
        }
    }

    @Test
    void bodyThatDoesNotParse_invalidArgument() throws IOException {
        start();
        // Field 1 (job, a proto3 string) holding the bytes FF FE: not UTF-8. Then a truncated varint.
        for (byte[] body : List.of(new byte[]{0x0a, 0x02, (byte) 0xff, (byte) 0xfe}, new byte[]{0x08, (byte) 0xff})) {
            StatusRuntimeException e = assertThrows(StatusRuntimeException.class,
                    () -> RawCall.call(channel, ShardGrpc.getDropUrlJobMethod().getFullMethodName(), body));
            assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode(), e.getStatus().toString());
        }
    }

    @Test
    void callsOverTheLimit_resourceExhausted_andTheSlotsComeBack() throws Exception {
        ShardGrpc.ShardBlockingStub stub = start();
        ShardGrpc.ShardFutureStub async = ShardGrpc.newFutureStub(channel);
        List<com.google.common.util.concurrent.ListenableFuture<ShardCountResponse>> held = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            held.add(async.dropUrlJob(ShardDropUrlJobRequest.newBuilder().setJob("j").build()));
        }
        assertTrue(entered.await(30, TimeUnit.SECONDS));
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> stub.dropUrlJob(ShardDropUrlJobRequest.getDefaultInstance()));
        assertEquals(Status.Code.RESOURCE_EXHAUSTED, e.getStatus().getCode());
        assertEquals("more than 2 calls in flight; retry with backoff", e.getStatus().getDescription());
        release.countDown();
        for (var f : held) {
            f.get(30, TimeUnit.SECONDS);
        }
        // The slots come back once each call completes on the server, a moment after the client has its answer.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (guard.inFlight() > 0 && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertEquals(0, guard.inFlight());
        stub.dropUrlJob(ShardDropUrlJobRequest.getDefaultInstance());
    }

    @Test
    void requestBytesOverTheBudget_resourceExhaustedBeforeTheHandler_andTheBytesComeBack() throws Exception {
        CallGuard budget = new CallGuard(100, 1 << 20);
        ShardGrpc.ShardBlockingStub stub = start(budget).withMaxOutboundMessageSize(4 << 20);
        ShardDropUrlJobRequest big = ShardDropUrlJobRequest.newBuilder().setJob("j".repeat(400_000)).build();
        ShardGrpc.ShardFutureStub async = ShardGrpc.newFutureStub(channel);
        List<com.google.common.util.concurrent.ListenableFuture<ShardCountResponse>> held = List.of(async.dropUrlJob(big), async.dropUrlJob(big));
        assertTrue(entered.await(30, TimeUnit.SECONDS));
        assertEquals(2L * big.getSerializedSize(), budget.bytesHeld());

        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> stub.dropUrlJob(big));
        assertEquals(Status.Code.RESOURCE_EXHAUSTED, e.getStatus().getCode());
        assertEquals("a request of " + big.getSerializedSize() + " bytes would take the requests in flight past this server's budget of "
                + (1 << 20) + " bytes; retry with backoff", e.getStatus().getDescription());
        assertEquals(2, dropCalls.get(), "the refused request reached the handler");

        release.countDown();
        for (var f : held) {
            f.get(30, TimeUnit.SECONDS);
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (budget.bytesHeld() > 0 && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertEquals(0, budget.bytesHeld());
        stub.dropUrlJob(big);
        assertEquals(3, dropCalls.get());
    }

    @Test
    void streamingCall_eachMessageHeldOnlyWhileHandled_soAStreamCanExceedTheBudget() throws Exception {
        CallGuard budget = new CallGuard(100, 1 << 20);
        List<Long> heldWhileHandled = java.util.Collections.synchronizedList(new ArrayList<>());
        io.simdex.proto.v1.SimdexGrpc.SimdexImplBase bulk = new io.simdex.proto.v1.SimdexGrpc.SimdexImplBase() {
            @Override
            public StreamObserver<io.simdex.proto.v1.BulkLoadRequest> bulkLoad(StreamObserver<io.simdex.proto.v1.BulkLoadResponse> out) {
                return new StreamObserver<>() {
                    @Override
                    public void onNext(io.simdex.proto.v1.BulkLoadRequest req) {
                        heldWhileHandled.add(budget.bytesHeld());
                    }

                    @Override
                    public void onError(Throwable t) {
                    }

                    @Override
                    public void onCompleted() {
                        out.onNext(io.simdex.proto.v1.BulkLoadResponse.newBuilder().setBatches(heldWhileHandled.size()).build());
                        out.onCompleted();
                    }
                };
            }
        };
        server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)).intercept(budget)
                .addService(ServerBounds.lenient(bulk.bindService())).build().start();
        channel = NettyChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext().build();
        io.simdex.proto.v1.BulkLoadRequest chunk = io.simdex.proto.v1.BulkLoadRequest.newBuilder().setCollection("c".repeat(400_000)).build();
        io.grpc.stub.StreamObserver<io.simdex.proto.v1.BulkLoadRequest> in;
        java.util.concurrent.CompletableFuture<io.simdex.proto.v1.BulkLoadResponse> answer = new java.util.concurrent.CompletableFuture<>();
        in = io.simdex.proto.v1.SimdexGrpc.newStub(channel).bulkLoad(new StreamObserver<>() {
            @Override
            public void onNext(io.simdex.proto.v1.BulkLoadResponse r) {
                answer.complete(r);
            }

            @Override
            public void onError(Throwable t) {
                answer.completeExceptionally(t);
            }

            @Override
            public void onCompleted() {
            }
        });
        for (int i = 0; i < 5; i++) { // 2 MB in all, twice the budget
            in.onNext(chunk);
        }
        in.onCompleted();
        assertEquals(5, answer.get(30, TimeUnit.SECONDS).getBatches());
        assertEquals((long) chunk.getSerializedSize(), java.util.Collections.max(heldWhileHandled));
    }

    @Test
    void requestBiggerThanTheBudget_admittedWhenNothingElseIsHeld() throws Exception {
        ShardGrpc.ShardBlockingStub stub = start(new CallGuard(100, 1000));
        release.countDown();
        stub.dropUrlJob(ShardDropUrlJobRequest.newBuilder().setJob("j".repeat(5000)).build());
        assertEquals(1, dropCalls.get());
    }
}
