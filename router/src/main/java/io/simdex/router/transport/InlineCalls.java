package io.simdex.router.transport;

import com.google.common.util.concurrent.MoreExecutors;
import io.grpc.Context;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.simdex.proto.v1.QueryRequest;
import io.simdex.proto.v1.ShardGrpc;
import io.simdex.proto.v1.SimdexGrpc;

import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * Where a server's calls run, for a server built on gRPC's direct executor: small calls of a few
 * compute-only methods on the transport thread that read them, everything else on the handler
 * pool, one call's callbacks in order.
 *
 * <p>Why: a unary Query on the pool pays two thread hand-offs (transport to handler, handler back
 * to transport for the write), each a wake-up on a loaded machine; handling it where it was read
 * pays none. Measured with unary queries of one fingerprint at 15,000 calls/s, open loop, on 2
 * cores (loadtest's open-loop run), the embedded server's own handling p50 went from about
 * 145 us to 47 us, the client's p99 from 1.3-1.8 ms to 0.6-1.3 ms, and the closed-loop rate at 8
 * callers rose 10-17%. But a transport thread serves every connection assigned to it, so
 * only work that is short and never waits may run there ({@link #SIMDEX_READS}): a Query of up to
 * {@link #INLINE_PROBES} probes given as fingerprints, and HandlingTimes. Every other
 * call goes to the pool: bigger queries, queries with texts (HanLP loads its dictionaries on
 * first use, for seconds), and every write, since a first write to a collection creates its
 * files (seconds of page zeroing at 50M).
 */
public final class InlineCalls implements ServerInterceptor {
    /** Largest Query handled on the transport thread: some 0.1-0.2 ms of work at 10M stored. */
    static final int INLINE_PROBES = 20;

    /**
     * Largest Query a router handles on its transport thread. It only routes the probes
     * (some 0.2 us each) and writes them to the nodes' streams; the nodes do the probing.
     */
    static final int ROUTER_INLINE_PROBES = 1000;

    /**
     * Largest shard read handled on a node's transport thread: some 500 fingerprints to probe or
     * resolve (fixed64), a query of about 100 probes' share of a node, well under 2 ms at 10M stored.
     */
    static final int INLINE_SHARD_BYTES = 8 * 1024;

    /** The simdex.v1.Simdex calls a server that only computes (embedded, echo) may handle in place, by method. */
    public static final Map<String, Predicate<Object>> SIMDEX_READS = Map.of(
            SimdexGrpc.getQueryMethod().getFullMethodName(), InlineCalls::smallQueryOfFingerprints,
            SimdexGrpc.getHandlingTimesMethod().getFullMethodName(), request -> true);

    /**
     * The simdex.v1.Shard reads of a query a shard node may handle in place, when small. A cluster
     * query is one or two rounds of these per node; on the handler pool each costs the node two
     * hand-offs (to a handler, back to the transport to answer), in place none. ReadStream's
     * requests are decided one by one. Lock and write calls wait (for other routers' unlocks,
     * for new files) and stay on the pool.
     */
    public static final Map<String, Predicate<Object>> SHARD_READS = Map.of(
            ShardGrpc.getProbeManyMethod().getFullMethodName(), InlineCalls::smallShardRead,
            ShardGrpc.getReadStreamMethod().getFullMethodName(), InlineCalls::smallShardRead,
            ShardGrpc.getResolveIdsMethod().getFullMethodName(), InlineCalls::smallShardRead,
            ShardGrpc.getProbeMethod().getFullMethodName(), InlineCalls::smallShardRead);

    /**
     * The calls a router may handle in place: a Query of up to {@link #ROUTER_INLINE_PROBES}
     * probes given as fingerprints, of a collection {@code cached} says the router
     * knows without asking the cluster's catalog. Its handler only routes the probes to the
     * nodes' read streams and returns; the nodes' answers complete it on the threads that read
     * them. In place, a query pays no hand-off to a handler thread and back.
     */
    public static Map<String, Predicate<Object>> routerReads(Predicate<String> cached) {
        return Map.of(SimdexGrpc.getQueryMethod().getFullMethodName(),
                request -> request instanceof QueryRequest q && ofFingerprints(q, ROUTER_INLINE_PROBES) && cached.test(q.getCollection()),
                SimdexGrpc.getHandlingTimesMethod().getFullMethodName(), request -> true);
    }

    /**
     * Whether {@code q} has at most {@code maxProbes} probes, none of them a text. Counted, not
     * measured: a parsed request's serialized size is computed probe by probe.
     */
    private static boolean ofFingerprints(QueryRequest q, int maxProbes) {
        if (q.getProbesCount() > maxProbes) {
            return false;
        }
        for (int i = 0; i < q.getProbesCount(); i++) {
            if (q.getProbes(i).hasText()) {
                return false;
            }
        }
        return true;
    }

    private static boolean smallShardRead(Object request) {
        return request instanceof com.google.protobuf.MessageLite m && m.getSerializedSize() <= INLINE_SHARD_BYTES;
    }

    private final Executor pool;
    private final Map<String, Predicate<Object>> inline;

    /**
     * @param inline for each method that may run in place, which of its requests do (the others,
     *               and every other method, run on {@code pool}); for a method whose client
     *               streams, each message is decided on its own, see {@link Dispatch}
     */
    public InlineCalls(Executor pool, Map<String, Predicate<Object>> inline) {
        this.pool = pool;
        this.inline = Map.copyOf(inline);
    }

    private static boolean smallQueryOfFingerprints(Object request) {
        return request instanceof QueryRequest q && ofFingerprints(q, INLINE_PROBES);
    }

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
        Predicate<Object> inPlace = inline.get(call.getMethodDescriptor().getFullMethodName());
        Dispatch<Q, R> d = new Dispatch<>(call, pool, inPlace, inPlace != null && !call.getMethodDescriptor().getType().clientSendsOneMessage());
        if (inPlace != null) {
            d.delegate = next.startCall(call, headers);
        } else {
            d.moveToPool();
            d.later(() -> d.delegate = next.startCall(call, headers));
        }
        return d;
    }

    /**
     * One call's listener: runs each callback in place until the call moves to the pool, then
     * hands each, in order, to a sequential executor over the pool. gRPC calls a listener from
     * one thread at a time, so the fields need no lock; tasks of the sequential executor see
     * each other's writes.
     *
     * <p>A call whose client streams ({@code perMessage}) comes back in place: a message runs in
     * place when it may and nothing of the call is queued on the pool, so a long-lived stream of
     * small requests pays no hand-offs for one big request among them, and its callbacks still run
     * in order, one at a time.
     */
    private static final class Dispatch<Q, R> extends ServerCall.Listener<Q> {
        private final ServerCall<Q, R> call;
        private final Executor pool;
        /** Which requests may run in place; null: none. */
        private final Predicate<Object> inPlace;
        private final boolean perMessage;
        /** Callbacks queued on the pool and not finished. */
        private final AtomicInteger queued = new AtomicInteger();
        /** Null while the call runs in place. */
        private Executor sequential;
        private ServerCall.Listener<Q> delegate;

        Dispatch(ServerCall<Q, R> call, Executor pool, Predicate<Object> inPlace, boolean perMessage) {
            this.call = call;
            this.pool = pool;
            this.inPlace = inPlace;
            this.perMessage = perMessage;
        }

        void moveToPool() {
            sequential = MoreExecutors.newSequentialExecutor(pool);
        }

        /** Queues {@code callback} behind the call's earlier ones on the pool, in the call's context. */
        void later(Runnable callback) {
            Runnable inContext = Context.current().wrap(callback);
            queued.incrementAndGet();
            sequential.execute(() -> {
                try {
                    inContext.run();
                } catch (RuntimeException | Error e) {
                    fail(e);
                    if (e instanceof Error error) {
                        throw error;
                    }
                } finally {
                    queued.decrementAndGet();
                }
            });
        }

        /** Ends the call as gRPC's own executor path does when a handler throws. */
        private void fail(Throwable e) {
            try {
                call.close(Status.UNKNOWN.withDescription("Application error processing RPC").withCause(e), new Metadata());
            } catch (IllegalStateException alreadyClosed) {
                // The handler closed the call before it threw; nothing more to tell the client.
            }
        }

        /** Runs {@code callback} in place while the call is not on the pool (or, per message, has nothing queued there), else queues it there. */
        private void run(Runnable callback) {
            if (sequential == null || perMessage && queued.get() == 0) {
                callback.run();
            } else {
                later(callback);
            }
        }

        @Override
        public void onMessage(Q message) {
            if (inPlace != null && (sequential == null || perMessage) && inPlace.test(message)) {
                run(() -> delegate.onMessage(message));
                return;
            }
            if (sequential == null) {
                moveToPool();
            }
            later(() -> delegate.onMessage(message));
        }

        @Override
        public void onHalfClose() {
            run(() -> delegate.onHalfClose());
        }

        @Override
        public void onCancel() {
            run(() -> delegate.onCancel());
        }

        @Override
        public void onComplete() {
            run(() -> delegate.onComplete());
        }

        @Override
        public void onReady() {
            run(() -> delegate.onReady());
        }
    }
}
