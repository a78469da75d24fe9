package io.simdex.router.shard;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;

/**
 * Placement epoch fencing, router side: every shard call of a cluster router carries the epoch
 * of the partition map it was routed by; a node that has seen a newer map refuses it with
 * FAILED_PRECONDITION, and the router retries on the newer map. Without the fence, a router
 * that missed a move could write a partition only to its old replicas after the copy started.
 */
public final class ShardEpochs {
    /** The metadata header, as the node's fence reads it. */
    public static final Metadata.Key<String> HEADER = io.simdex.server.EpochFence.HEADER;
    private static final String STALE = "stale placement epoch";

    private ShardEpochs() {
    }

    /** Stamps every call with {@code epoch}. */
    public static ClientInterceptor stamp(long epoch) {
        String value = Long.toString(epoch);
        return new ClientInterceptor() {
            @Override
            public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
                return new ForwardingClientCall.SimpleForwardingClientCall<>(next.newCall(method, options)) {
                    @Override
                    public void start(Listener<R> listener, Metadata headers) {
                        headers.put(HEADER, value);
                        super.start(listener, headers);
                    }
                };
            }
        };
    }

    /** Whether a shard refused a call for a stale epoch (the node's fence words it so). */
    public static boolean isStale(Status status) {
        return status.getCode() == Status.Code.FAILED_PRECONDITION && status.getDescription() != null
                && status.getDescription().startsWith(STALE);
    }
}
