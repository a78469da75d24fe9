package io.simdex.router.transport;

import io.grpc.Context;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;
import io.simdex.proto.v1.BulkLoadRequest;
import io.simdex.proto.v1.BulkLoadResponse;
import io.simdex.proto.v1.Document;
import io.simdex.proto.v1.InsertRequest;
import io.simdex.proto.v1.InsertResponse;
import io.simdex.proto.v1.Probe;
import io.simdex.proto.v1.QueryRequest;
import io.simdex.proto.v1.QueryResponse;
import io.simdex.proto.v1.ShardGrpc;
import io.simdex.proto.v1.ShardLockRequest;
import io.simdex.proto.v1.ShardLockResponse;
import io.simdex.proto.v1.ShardProbeManyRequest;
import io.simdex.proto.v1.ShardProbeManyResponse;
import io.simdex.proto.v1.ShardProbePart;
import io.simdex.proto.v1.ShardReadAnswer;
import io.simdex.proto.v1.ShardReadRequest;
import io.simdex.proto.v1.ShardResolveRequest;
import io.simdex.proto.v1.ShardResolveResponse;
import io.simdex.proto.v1.SimdexGrpc;
import io.simdex.server.grpc.CallGuard;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.IntStream;
import java.util.stream.LongStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Which thread handles which call when small reads run in place, over a real socket. */
class InlineCallsTest {
    private static final String POOL = "simdex-handler";

    /** Each handler notes its thread, whether it sees the call's deadline, and the documents in order. */
    private final List<String> threads = new CopyOnWriteArrayList<>();
    private final List<Boolean> deadlines = new CopyOnWriteArrayList<>();
    private final List<String> streamed = new CopyOnWriteArrayList<>();
    /** What an insert does before it answers: nothing, or waits as a write may. */
    private volatile Blocking blockInserts = () -> { };

    private interface Blocking {
        void run() throws InterruptedException;
    }
    private final SimdexGrpc.SimdexImplBase recording = new SimdexGrpc.SimdexImplBase() {
        @Override
        public void query(QueryRequest req, StreamObserver<QueryResponse> out) {
            note();
            if (req.getCollection().equals("throw")) {
                throw new IllegalStateException("handler bug");
            }
            out.onNext(QueryResponse.getDefaultInstance());
            out.onCompleted();
        }

        @Override
        public void insert(InsertRequest req, StreamObserver<InsertResponse> out) {
            note();
            try {
                blockInserts.run();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            out.onNext(InsertResponse.getDefaultInstance());
            out.onCompleted();
        }

        @Override
        public StreamObserver<BulkLoadRequest> bulkLoad(StreamObserver<BulkLoadResponse> out) {
            return new StreamObserver<>() {
                @Override
                public void onNext(BulkLoadRequest req) {
                    note();
                    streamed.add(req.getDocuments(0).getId());
                }

                @Override
                public void onError(Throwable t) {
                }

                @Override
                public void onCompleted() {
                    out.onNext(BulkLoadResponse.newBuilder().setInserted(streamed.size()).build());
                    out.onCompleted();
                }
            };
        }

        private void note() {
            threads.add(Thread.currentThread().getName());
            deadlines.add(Context.current().getDeadline() != null);
        }
    };

    private PublicServer server;
    private ManagedChannel channel;

    @AfterEach
    void stop() throws Exception {
        channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        server.close();
    }

    @Test
    void smallQueryOfFingerprints_runsOnTheTransportThread_restOnThePool() throws Exception {
        SimdexGrpc.SimdexBlockingStub stub = start(InlineCalls.SIMDEX_READS);

        stub.query(query(1, false));
        stub.query(query(InlineCalls.INLINE_PROBES, false));
        stub.query(query(InlineCalls.INLINE_PROBES + 1, false));
        stub.query(query(1, true));
        stub.insert(InsertRequest.newBuilder().addDocuments(Document.newBuilder().setId("a").setFingerprint(1)).build());

        assertEquals(5, threads.size(), threads.toString());
        assertTrue(!threads.get(0).startsWith(POOL), "one probe, in place: " + threads);
        assertTrue(!threads.get(1).startsWith(POOL), "as many probes as the limit, in place: " + threads);
        assertTrue(threads.get(2).startsWith(POOL), "one probe over the limit: " + threads);
        assertTrue(threads.get(3).startsWith(POOL), "a text to fingerprint: " + threads);
        assertTrue(threads.get(4).startsWith(POOL), "a write: " + threads);
        assertEquals(List.of(true, true, true, true, true), deadlines, "every handler runs in its call's context");
    }

    @Test
    void routerReads_queriesOfKnownCollectionsInPlace_restOnAnUnboundedPool() throws Exception {
        server = PublicServer.start("127.0.0.1", 0, recording.bindService(), SimdexGrpc.SERVICE_NAME, List.of(), HandlerThreads.UNBOUNDED,
                InlineCalls.routerReads(name -> name.equals("known")), null);
        channel = NettyChannelBuilder.forAddress("127.0.0.1", server.port()).usePlaintext().build();
        SimdexGrpc.SimdexBlockingStub stub = SimdexGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS);

        stub.query(query(InlineCalls.ROUTER_INLINE_PROBES, false).toBuilder().setCollection("known").build());
        stub.query(query(InlineCalls.ROUTER_INLINE_PROBES + 1, false).toBuilder().setCollection("known").build());
        stub.query(query(1, false).toBuilder().setCollection("unknown").build());
        stub.query(query(1, true).toBuilder().setCollection("known").build());
        // Calls that wait (writes, a collection the cluster's catalog must be asked for) each get a
        // thread: two of them waiting at once must not hold up a third.
        CountDownLatch waiting = new CountDownLatch(2);
        CountDownLatch release = new CountDownLatch(1);
        blockInserts = () -> {
            waiting.countDown();
            release.await(30, TimeUnit.SECONDS);
        };
        SimdexGrpc.SimdexFutureStub async = SimdexGrpc.newFutureStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS);
        InsertRequest insert = InsertRequest.newBuilder().addDocuments(Document.newBuilder().setId("a").setFingerprint(1)).build();
        var first = async.insert(insert);
        var second = async.insert(insert);
        assertTrue(waiting.await(30, TimeUnit.SECONDS), "both inserts run at once on the unbounded pool");
        release.countDown();
        first.get(30, TimeUnit.SECONDS);
        second.get(30, TimeUnit.SECONDS);

        assertEquals(6, threads.size(), threads.toString());
        assertTrue(!threads.get(0).startsWith(POOL), "a query of a known collection, in place: " + threads);
        assertTrue(threads.get(1).startsWith(POOL), "one probe over the limit: " + threads);
        assertTrue(threads.get(2).startsWith(POOL), "a collection not cached: " + threads);
        assertTrue(threads.get(3).startsWith(POOL), "a text to fingerprint: " + threads);
        assertTrue(threads.subList(4, 6).stream().allMatch(t -> t.startsWith(POOL)), "writes: " + threads);
    }

    @Test
    void noInlineMethods_everyCallOnThePool() throws Exception {
        SimdexGrpc.SimdexBlockingStub stub = start(Map.of());

        stub.query(query(1, false));

        assertTrue(threads.get(0).startsWith(POOL), threads.toString());
    }

    @Test
    void handlerThatThrows_failsItsCallWithInternalAndARequestId_inPlaceOrOnThePool() throws Exception {
        SimdexGrpc.SimdexBlockingStub stub = start(InlineCalls.SIMDEX_READS);

        for (int probes : new int[] {1, 100}) {
            QueryRequest bad = query(probes, false).toBuilder().setCollection("throw").build();
            StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> stub.query(bad));
            assertEquals(Status.Code.INTERNAL, e.getStatus().getCode(), probes + " probes: " + e.getStatus());
            assertTrue(e.getStatus().getDescription().startsWith(CallGuard.INTERNAL_PREFIX), e.getStatus().getDescription());
        }
        stub.query(query(1, false));
        assertEquals(3, threads.size(), "the server still answers: " + threads);
    }

    @Test
    void clientStream_runsOnThePool_messagesInOrder() throws Exception {
        start(InlineCalls.SIMDEX_READS);
        CompletableFuture<BulkLoadResponse> done = new CompletableFuture<>();
        StreamObserver<BulkLoadRequest> in = SimdexGrpc.newStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS).bulkLoad(new StreamObserver<>() {
            @Override
            public void onNext(BulkLoadResponse r) {
                done.complete(r);
            }

            @Override
            public void onError(Throwable t) {
                done.completeExceptionally(t);
            }

            @Override
            public void onCompleted() {
            }
        });
        for (int i = 0; i < 200; i++) {
            in.onNext(BulkLoadRequest.newBuilder().addDocuments(Document.newBuilder().setId("d" + i).setFingerprint(i)).build());
        }
        in.onCompleted();

        assertEquals(200, done.get(30, TimeUnit.SECONDS).getInserted());
        assertEquals(IntStream.range(0, 200).mapToObj(i -> "d" + i).toList(), streamed);
        assertTrue(threads.stream().allMatch(t -> t.startsWith(POOL)), threads.toString());
    }

    @Test
    void smallShardReads_runOnTheTransportThread_bigReadsAndLocksOnThePool() throws Exception {
        ShardGrpc.ShardImplBase shard = new ShardGrpc.ShardImplBase() {
            @Override
            public void probeMany(ShardProbeManyRequest req, StreamObserver<ShardProbeManyResponse> out) {
                threads.add(Thread.currentThread().getName());
                out.onNext(ShardProbeManyResponse.getDefaultInstance());
                out.onCompleted();
            }

            @Override
            public void resolveIds(ShardResolveRequest req, StreamObserver<ShardResolveResponse> out) {
                threads.add(Thread.currentThread().getName());
                out.onNext(ShardResolveResponse.getDefaultInstance());
                out.onCompleted();
            }

            @Override
            public void lockBuckets(ShardLockRequest req, StreamObserver<ShardLockResponse> out) {
                threads.add(Thread.currentThread().getName());
                out.onNext(ShardLockResponse.getDefaultInstance());
                out.onCompleted();
            }
        };
        server = PublicServer.start("127.0.0.1", 0, shard.bindService(), ShardGrpc.SERVICE_NAME, List.of(), 2, InlineCalls.SHARD_READS, null);
        channel = NettyChannelBuilder.forAddress("127.0.0.1", server.port()).usePlaintext().build();
        ShardGrpc.ShardBlockingStub stub = ShardGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS);
        int fits = (InlineCalls.INLINE_SHARD_BYTES - 64) / Long.BYTES;

        stub.probeMany(probeMany(fits));
        stub.probeMany(probeMany(fits + 64));
        stub.resolveIds(ShardResolveRequest.newBuilder().setCollection("c").addFingerprints(1).addGenerations(0).build());
        stub.lockBuckets(ShardLockRequest.newBuilder().setCollection("c").addBucketKeys(1).build());

        assertEquals(4, threads.size(), threads.toString());
        assertTrue(!threads.get(0).startsWith(POOL), "a query's share of a node, in place: " + threads);
        assertTrue(threads.get(1).startsWith(POOL), "over the size limit: " + threads);
        assertTrue(!threads.get(2).startsWith(POOL), "ids of a few matches, in place: " + threads);
        assertTrue(threads.get(3).startsWith(POOL), "a lock call, which may wait: " + threads);
    }

    @Test
    void readStream_eachRequestDecidedOnItsOwn_smallInPlaceBigOnThePool_answersInOrder() throws Exception {
        ShardGrpc.ShardImplBase shard = new ShardGrpc.ShardImplBase() {
            @Override
            public StreamObserver<ShardReadRequest> readStream(StreamObserver<ShardReadAnswer> out) {
                return new StreamObserver<>() {
                    @Override
                    public void onNext(ShardReadRequest r) {
                        threads.add(Thread.currentThread().getName());
                        out.onNext(ShardReadAnswer.newBuilder().setSequence(r.getSequence()).build());
                    }

                    @Override
                    public void onError(Throwable t) {
                    }

                    @Override
                    public void onCompleted() {
                        out.onCompleted();
                    }
                };
            }
        };
        server = PublicServer.start("127.0.0.1", 0, shard.bindService(), ShardGrpc.SERVICE_NAME, List.of(), 2, InlineCalls.SHARD_READS, null);
        channel = NettyChannelBuilder.forAddress("127.0.0.1", server.port()).usePlaintext().build();
        int fits = (InlineCalls.INLINE_SHARD_BYTES - 64) / Long.BYTES;
        int big = fits + 64;
        // Pipelined, then one at a time: the small requests after the last big ones are sent once the one before is answered.
        int[] pipelined = {fits, big, fits, big, big, fits};
        java.util.concurrent.LinkedBlockingQueue<Long> answered = new java.util.concurrent.LinkedBlockingQueue<>();
        CompletableFuture<Void> done = new CompletableFuture<>();
        StreamObserver<ShardReadRequest> in = ShardGrpc.newStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS)
                .readStream(new StreamObserver<>() {
                    @Override
                    public void onNext(ShardReadAnswer a) {
                        answered.add(a.getSequence());
                    }

                    @Override
                    public void onError(Throwable t) {
                        done.completeExceptionally(t);
                    }

                    @Override
                    public void onCompleted() {
                        done.complete(null);
                    }
                });
        List<Long> order = new java.util.ArrayList<>();
        long sequence = 0;
        for (int size : pipelined) {
            in.onNext(ShardReadRequest.newBuilder().setSequence(++sequence).setProbeMany(probeMany(size)).build());
        }
        for (int i = 0; i < pipelined.length; i++) {
            order.add(answered.poll(30, TimeUnit.SECONDS));
        }
        // An answer reaches the client before the pool task that sent it has finished, so the next
        // request may still find it there and queue behind it: send small ones until one runs in place.
        int oneByOneTries = 200;
        int tries = 0;
        do {
            in.onNext(ShardReadRequest.newBuilder().setSequence(++sequence).setProbeMany(probeMany(fits)).build());
            order.add(answered.poll(30, TimeUnit.SECONDS));
        } while (++tries < oneByOneTries && threads.get(threads.size() - 1).startsWith(POOL));
        in.onCompleted();
        done.get(30, TimeUnit.SECONDS);

        assertEquals(LongStream.rangeClosed(1, sequence).boxed().toList(), order, "answered in order");
        assertEquals((int) sequence, threads.size(), threads.toString());
        assertTrue(!threads.get(0).startsWith(POOL), "the first request, small, in place: " + threads);
        for (int i = 0; i < pipelined.length; i++) {
            if (pipelined[i] == big) {
                assertTrue(threads.get(i).startsWith(POOL), "request " + (i + 1) + " over the size limit: " + threads);
            }
        }
        assertTrue(!threads.get(threads.size() - 1).startsWith(POOL),
                "a small request after big ones comes back in place within " + oneByOneTries + " tries: " + threads);
    }

    private static ShardProbeManyRequest probeMany(int fingerprints) {
        ShardProbePart.Builder part = ShardProbePart.newBuilder().setTable(0).setMaxDistance(3);
        for (int i = 0; i < fingerprints; i++) {
            part.addFingerprints(i * 0x9E3779B97F4A7C15L);
        }
        return ShardProbeManyRequest.newBuilder().setCollection("c").addGenerations(0).addParts(part).build();
    }

    private SimdexGrpc.SimdexBlockingStub start(Map<String, Predicate<Object>> inline) {
        server = PublicServer.start("127.0.0.1", 0, recording.bindService(), SimdexGrpc.SERVICE_NAME, List.of(), 2, inline, null);
        channel = NettyChannelBuilder.forAddress("127.0.0.1", server.port()).usePlaintext().build();
        return SimdexGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS);
    }

    private static QueryRequest query(int probes, boolean text) {
        QueryRequest.Builder b = QueryRequest.newBuilder();
        for (int i = 0; i < probes; i++) {
            Probe.Builder p = Probe.newBuilder().setFingerprint(i * 0x9E3779B97F4A7C15L);
            if (text) {
                p.setText("a short text");
            }
            b.addProbes(p);
        }
        return b.build();
    }
}
