package io.simdex.router.transport;

import io.grpc.ForwardingServerCall.SimpleForwardingServerCall;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.simdex.proto.v1.SimdexGrpc;

import java.util.ArrayDeque;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Supplier;

/**
 * Holds a call's answer until its writes are durable: the first response message, or an OK
 * close without one, is held with whatever the call sends after it until a barrier completes
 * (in the embedded server: every local shard's {@code ShardNode.durable}), then sent on
 * {@code executor}. One public request thus costs one barrier, however many shard calls it
 * made, and concurrent requests share the forces behind it (group commit). If the barrier
 * fails, the call fails with INTERNAL instead of answering: its writes may be lost.
 *
 * <p>The handler's thread does not wait for the barrier. The embedded server runs handlers on
 * one thread per core ({@link HandlerThreads}): with those threads waiting, only as many writes
 * as cores were in flight, so a force covered at most that many calls, and 8 callers of
 * one-document Inserts got 0.14x the rate of {@code --durability process} (loadtest/REPORT.md,
 * the durability figure).
 *
 * <p>Calls of the methods in {@code reads} pass straight through; every other method waits, so a
 * method added later is safe by default.
 */
public final class DurableReplies implements ServerInterceptor {
    /** The simdex.v1.Simdex methods that write nothing. */
    public static final Set<String> SIMDEX_READS = Set.of(
            SimdexGrpc.getQueryMethod().getFullMethodName(),
            SimdexGrpc.getLookupMethod().getFullMethodName(),
            SimdexGrpc.getExportMethod().getFullMethodName(),
            SimdexGrpc.getListCollectionsMethod().getFullMethodName(),
            SimdexGrpc.getFingerprintMethod().getFullMethodName(),
            SimdexGrpc.getStatsMethod().getFullMethodName(),
            SimdexGrpc.getHandlingTimesMethod().getFullMethodName());

    private final Supplier<? extends CompletableFuture<?>> barrier;
    private final Executor executor;
    private final Set<String> reads;

    /**
     * @param barrier  a future completed once every write made so far is durable, exceptionally if one cannot be
     * @param executor sends the answers held for a barrier once it completed (the barrier's own
     *                 thread when the executor refuses, as a stopping one does)
     */
    public DurableReplies(Supplier<? extends CompletableFuture<?>> barrier, Executor executor, Set<String> reads) {
        this.barrier = barrier;
        this.executor = executor;
        this.reads = Set.copyOf(reads);
    }

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
        if (reads.contains(call.getMethodDescriptor().getFullMethodName())) {
            return next.startCall(call, headers);
        }
        return next.startCall(new HeldReplies<>(call), headers);
    }

    private enum State { OPEN, HELD, DURABLE, FAILED }

    /** A writing call's outbound side: sends pass until the first that must wait, which and all after it wait for the barrier. */
    private final class HeldReplies<Q, R> extends SimpleForwardingServerCall<Q, R> {
        private State state = State.OPEN;
        /** What the call sent while held, in order. */
        private final ArrayDeque<Runnable> held = new ArrayDeque<>(2);

        HeldReplies(ServerCall<Q, R> call) {
            super(call);
        }

        @Override
        public synchronized void sendMessage(R message) {
            switch (state) {
                case DURABLE -> super.sendMessage(message);
                case OPEN -> {
                    held.add(() -> super.sendMessage(message));
                    hold();
                }
                case HELD -> held.add(() -> super.sendMessage(message));
                case FAILED -> {
                    // Closed with INTERNAL already.
                }
            }
        }

        @Override
        public synchronized void close(Status status, Metadata trailers) {
            switch (state) {
                case DURABLE -> super.close(status, trailers);
                case OPEN -> {
                    if (status.isOk()) {
                        held.add(() -> super.close(status, trailers));
                        hold();
                    } else {
                        super.close(status, trailers);
                    }
                }
                case HELD -> held.add(() -> super.close(status, trailers));
                case FAILED -> {
                    // Closed with INTERNAL already.
                }
            }
        }

        /** Asks for the barrier of every write made so far; the caller holds the monitor. */
        private void hold() {
            state = State.HELD;
            CompletableFuture<?> durable;
            try {
                durable = barrier.get();
            } catch (RuntimeException e) {
                failed(e);
                return;
            }
            durable.whenComplete((v, e) -> dispatch(() -> released(e)));
        }

        private void dispatch(Runnable r) {
            try {
                executor.execute(r);
            } catch (RejectedExecutionException e) {
                r.run();
            }
        }

        private synchronized void released(Throwable e) {
            if (e != null) {
                failed(e instanceof CompletionException && e.getCause() != null ? e.getCause() : e);
                return;
            }
            state = State.DURABLE;
            while (!held.isEmpty()) {
                held.poll().run();
            }
        }

        private void failed(Throwable cause) {
            state = State.FAILED;
            held.clear();
            super.close(Status.INTERNAL.withDescription("the write is not durable: " + cause.getMessage()).withCause(cause), new Metadata());
        }
    }
}
