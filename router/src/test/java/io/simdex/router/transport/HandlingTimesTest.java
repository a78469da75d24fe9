package io.simdex.router.transport;

import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.simdex.proto.v1.HandlingTimesRequest;
import io.simdex.proto.v1.HandlingTimesResponse;
import io.simdex.proto.v1.MethodHandlingTime;
import io.simdex.proto.v1.Probe;
import io.simdex.proto.v1.QueryRequest;
import io.simdex.proto.v1.SimdexGrpc;
import io.simdex.router.EmbeddedSimdex;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The router times its own handling of every call, per method, and can reset. */
class HandlingTimesTest {
    @TempDir
    Path dir;

    @Test
    void handlingTimes_countsEveryCallPerMethod_andResets() throws Exception {
        try (EmbeddedSimdex simdex = EmbeddedSimdex.start(dir, 2, "127.0.0.1", 0, 10_000)) {
            ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", simdex.port()).usePlaintext().build();
            try {
                SimdexGrpc.SimdexBlockingStub stub = SimdexGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS);
                // A call is counted when it ends, its queued time with it: the first HandlingTimes
                // call is not in its own answer, and the next one's counts it whole.
                assertTrue(stub.handlingTimes(HandlingTimesRequest.getDefaultInstance()).getMethodsList().stream()
                        .noneMatch(m -> m.getMethod().endsWith("/HandlingTimes")), "the running call is not reported");
                for (int i = 0; i < 50; i++) {
                    stub.query(QueryRequest.newBuilder().addProbes(Probe.newBuilder().setFingerprint(i)).build());
                }
                HandlingTimesResponse all = stub.handlingTimes(HandlingTimesRequest.newBuilder().setReset(true).build());
                MethodHandlingTime own = all.getMethodsList().stream().filter(m -> m.getMethod().endsWith("/HandlingTimes")).findFirst().orElseThrow();
                assertEquals(1, own.getCalls(), own.toString());
                assertTrue(own.getQueuedMaxUs() <= own.getMaxUs(), own.toString());
                MethodHandlingTime query = query(all);
                assertEquals(50, query.getCalls());
                assertTrue(query.getP50Us() > 0 && query.getP50Us() <= query.getP99Us() && query.getP99Us() <= query.getMaxUs(), query.toString());
                // Each call's wait for a thread is part of its handling time, so each order statistic is too.
                assertTrue(query.getQueuedP50Us() <= query.getP50Us() && query.getQueuedP99Us() <= query.getP99Us()
                        && query.getQueuedMaxUs() <= query.getMaxUs(), query.toString());
                assertEquals(0, query(stub.handlingTimes(HandlingTimesRequest.getDefaultInstance())).getCalls(), "reset");
            } finally {
                channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            }
        }
    }

    /**
     * Two calls on one handler thread that holds each for 300 ms: the second waits for the first,
     * and its handling time says so, as does its queued time. An interceptor, called once the call
     * has its thread, would report about 300 ms for both.
     */
    @Test
    void handlingTimes_includeTheWaitForAHandlerThread() throws Exception {
        HandlingTimes times = new HandlingTimes();
        SimdexGrpc.SimdexImplBase slow = new SimdexGrpc.SimdexImplBase() {
            @Override
            public void query(QueryRequest req, io.grpc.stub.StreamObserver<io.simdex.proto.v1.QueryResponse> out) {
                try {
                    Thread.sleep(300);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                out.onNext(io.simdex.proto.v1.QueryResponse.getDefaultInstance());
                out.onCompleted();
            }
        };
        try (PublicServer server = PublicServer.start("127.0.0.1", 0, slow.bindService(), SimdexGrpc.SERVICE_NAME, 1, times)) {
            ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", server.port()).usePlaintext().build();
            try {
                SimdexGrpc.SimdexFutureStub stub = SimdexGrpc.newFutureStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS);
                var first = stub.query(QueryRequest.getDefaultInstance());
                var second = stub.query(QueryRequest.getDefaultInstance());
                first.get();
                second.get();
                MethodHandlingTime query = recorded(times, 2);
                assertEquals(2, query.getCalls());
                assertTrue(query.getP50Us() >= 290_000, "first call: " + query);
                assertTrue(query.getMaxUs() >= 590_000, "the second call waited for the first: " + query);
                assertTrue(query.getQueuedMaxUs() >= 290_000, "and its wait is reported as queueing: " + query);
                assertTrue(query.getQueuedP50Us() < 200_000, "the first call did not wait: " + query);
            } finally {
                channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            }
        }
    }

    /** Snapshots with reset while calls end on other threads: every call is counted exactly once. */
    @Test
    void snapshotWithReset_concurrentCalls_noneLostOrCountedTwice() throws Exception {
        HandlingTimes times = new HandlingTimes();
        times.register(new SimdexGrpc.SimdexImplBase() {
        }.bindService());
        int threads = 4;
        int callsEach = 50_000;
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(threads);
        try {
            java.util.List<java.util.concurrent.Future<?>> done = new java.util.ArrayList<>();
            for (int t = 0; t < threads; t++) {
                done.add(pool.submit(() -> {
                    for (int i = 0; i < callsEach; i++) {
                        times.newServerStreamTracer("simdex.v1.Simdex/Query", new io.grpc.Metadata()).streamClosed(io.grpc.Status.OK);
                    }
                }));
            }
            long counted = 0;
            while (!done.stream().allMatch(java.util.concurrent.Future::isDone)) {
                counted += queryCalls(times.snapshot(true));
            }
            for (java.util.concurrent.Future<?> f : done) {
                f.get();
            }
            counted += queryCalls(times.snapshot(true));
            assertEquals((long) threads * callsEach, counted);
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * Query's times once {@code calls} are recorded, or after 5 s. A call is recorded when its
     * stream closes on the server, which can be just after the client has its answer.
     */
    private static MethodHandlingTime recorded(HandlingTimes times, int calls) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (queryCalls(times.snapshot(false)) < calls && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        return query(times.snapshot(false));
    }

    /** Query's calls in a snapshot; 0 before its first call. */
    private static long queryCalls(HandlingTimesResponse r) {
        return r.getMethodsList().stream().filter(m -> m.getMethod().equals("simdex.v1.Simdex/Query"))
                .mapToLong(MethodHandlingTime::getCalls).sum();
    }

    private static MethodHandlingTime query(HandlingTimesResponse r) {
        return r.getMethodsList().stream().filter(m -> m.getMethod().equals("simdex.v1.Simdex/Query")).findFirst()
                .orElseThrow(() -> new AssertionError("no Query in " + r));
    }
}
