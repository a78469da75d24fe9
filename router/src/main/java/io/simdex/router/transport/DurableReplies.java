package io.simdex.router.transport;

import io.grpc.ForwardingServerCall.SimpleForwardingServerCall;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.simdex.proto.v1.SimdexGrpc;

import java.util.Set;

/**
 * Holds a call's answer until its writes are durable: before the first response message, or
 * before an OK close without one, the call waits on a barrier (in the embedded server: every
 * local shard's {@code ShardNode.awaitDurable}). One public request thus costs one wait, however
 * many shard calls it made, and concurrent requests share the forces behind it (group commit).
 * If the barrier fails, the call fails with INTERNAL instead of answering: its writes may be lost.
 *
 * <p>Calls of the methods in {@code reads} pass straight through; every other method waits, so a
 * method added later is safe by default.
 */
public final class DurableReplies implements ServerInterceptor {
    /** The simdex.v1.Simdex methods that write nothing. */
    public static final Set<String> SIMDEX_READS = Set.of(
            SimdexGrpc.getQueryMethod().getFullMethodName(),
            SimdexGrpc.getListCollectionsMethod().getFullMethodName(),
            SimdexGrpc.getFingerprintMethod().getFullMethodName(),
            SimdexGrpc.getStatsMethod().getFullMethodName(),
            SimdexGrpc.getHandlingTimesMethod().getFullMethodName());

    private final Runnable barrier;
    private final Set<String> reads;

    /** @param barrier returns once every write made so far is durable; throws if one cannot be */
    public DurableReplies(Runnable barrier, Set<String> reads) {
        this.barrier = barrier;
        this.reads = Set.copyOf(reads);
    }

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
        if (reads.contains(call.getMethodDescriptor().getFullMethodName())) {
            return next.startCall(call, headers);
        }
        return next.startCall(new SimpleForwardingServerCall<>(call) {
            private boolean durable;
            private boolean failed;

            @Override
            public void sendMessage(R message) {
                if (awaitDurable()) {
                    super.sendMessage(message);
                }
            }

            @Override
            public void close(Status status, Metadata trailers) {
                if (!failed && (!status.isOk() || awaitDurable())) {
                    super.close(status, trailers);
                }
            }

            private boolean awaitDurable() {
                if (durable || failed) {
                    return durable;
                }
                try {
                    barrier.run();
                    durable = true;
                } catch (RuntimeException e) {
                    failed = true;
                    super.close(Status.INTERNAL.withDescription("the write is not durable: " + e.getMessage()).withCause(e),
                            new Metadata());
                }
                return durable;
            }
        }, headers);
    }
}
