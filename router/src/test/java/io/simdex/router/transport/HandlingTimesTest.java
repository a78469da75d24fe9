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
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
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
        List<String> slowLog = new CopyOnWriteArrayList<>();
        times.logSlowCallsTo(new SlowCalls(250, slowLog::add, System::nanoTime));
        try (PublicServer server = PublicServer.start("127.0.0.1", 0, slow.bindService(), SimdexGrpc.SERVICE_NAME, 1, times)) {
            ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", server.port()).usePlaintext().build();
            try {
                SimdexGrpc.SimdexFutureStub stub = SimdexGrpc.newFutureStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS);
                QueryRequest news = QueryRequest.newBuilder().setCollection("news").addProbes(Probe.newBuilder().setFingerprint(1))
                        .addProbes(Probe.newBuilder().setText("a text that is not logged")).build();
                var first = stub.query(news);
                var second = stub.query(news);
                first.get();
                second.get();
                // Both took 300 ms or more: each is in the slow-call log with what it asked for, the second with its wait.
                assertTrue(waitFor(() -> slowLog.size() == 2), slowLog.toString());
                for (String line : slowLog) {
                    assertTrue(line.matches("slow call simdex\\.v1\\.Simdex/Query: [0-9.]+ ms \\(queued [0-9.]+ ms\\), OK, from /127\\.0\\.0\\.1:[0-9]+: "
                            + "collection=news probes=2"), line);
                }
                assertTrue(slowLog.stream().anyMatch(l -> Double.parseDouble(l.replaceAll(".*queued ([0-9.]+) ms.*", "$1")) >= 290), slowLog.toString());
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

    /** A call's close is seen by the tracer on a transport thread, just after the client's answer. */
    private static boolean waitFor(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > until) {
                return false;
            }
            Thread.onSpinWait();
        }
        return true;
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
