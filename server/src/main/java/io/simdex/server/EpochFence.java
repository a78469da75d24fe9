package io.simdex.server;

import io.grpc.BindableService;
import io.grpc.ForwardingServerCallListener.SimpleForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Refuses calls made with a stale placement map: a router stamps each call with its map's epoch
 * in the {@value #HEADER_NAME} header (ASCII decimal); if that is older than the node's epoch,
 * the call fails with FAILED_PRECONDITION (refresh the map, then retry) before reaching the
 * service. A call without the header passes: tools and single-node setups have no map.
 * A header that is not a decimal number fails with INVALID_ARGUMENT. A cluster node puts both
 * shard services, data plane and control plane, behind it ({@link #around}).
 */
public final class EpochFence implements ServerInterceptor {
    public static final String HEADER_NAME = "simdex-epoch";
    public static final Metadata.Key<String> HEADER = Metadata.Key.of(HEADER_NAME, Metadata.ASCII_STRING_MARSHALLER);

    private final NodeState state;

    public EpochFence(NodeState state) {
        this.state = state;
    }

    /** {@code service} behind a fence on {@code state}. */
    public static ServerServiceDefinition around(BindableService service, NodeState state) {
        return ServerInterceptors.intercept(service, new EpochFence(state));
    }

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
        String stamped = headers.get(HEADER);
        if (stamped == null) {
            return next.startCall(call, headers);
        }
        long epoch;
        try {
            epoch = Long.parseUnsignedLong(stamped.trim());
        } catch (NumberFormatException e) {
            return refuse(call, Status.INVALID_ARGUMENT.withDescription(HEADER_NAME + " header '" + stamped + "' is not a decimal number"));
        }
        if (!state.admit(epoch)) {
            return refuse(call, stale(state, epoch));
        }
        // Counted until the call ends, so SetEpoch can wait for calls routed by the older map
        // (a write's end waits for its answer, which may wait for a force of the log).
        AtomicBoolean done = new AtomicBoolean();
        Runnable finish = () -> {
            if (done.compareAndSet(false, true)) {
                state.finished(epoch);
            }
        };
        ServerCall.Listener<Q> listener;
        try {
            listener = next.startCall(call, headers);
        } catch (RuntimeException e) {
            finish.run();
            throw e;
        }
        return new SimpleForwardingServerCallListener<>(listener) {
            @Override
            public void onComplete() {
                try {
                    super.onComplete();
                } finally {
                    finish.run();
                }
            }

            @Override
            public void onCancel() {
                try {
                    super.onCancel();
                } finally {
                    finish.run();
                }
            }
        };
    }

    /** The refusal of work stamped {@code epoch}, older than the node's: the router's ShardEpochs recognises it. */
    static Status stale(NodeState state, long epoch) {
        return Status.FAILED_PRECONDITION.withDescription("stale placement epoch " + Long.toUnsignedString(epoch)
                + ", node " + state.nodeId() + " is at " + Long.toUnsignedString(state.epoch()));
    }

    private static <Q, R> ServerCall.Listener<Q> refuse(ServerCall<Q, R> call, Status status) {
        call.close(status, new Metadata());
        return new ServerCall.Listener<>() {
        };
    }
}
