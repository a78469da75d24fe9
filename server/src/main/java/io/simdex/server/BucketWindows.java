package io.simdex.server;

import io.grpc.stub.StreamObserver;
import io.simdex.proto.v1.ShardBucketAddManyRequest;
import io.simdex.proto.v1.ShardBucketWindow;
import io.simdex.proto.v1.ShardBucketWindowAck;

import java.util.function.ToLongFunction;

/**
 * One BucketAddStream call (shard.proto): a bulk load's windows of bucket additions, each
 * applied as BucketAddMany applies its request and acknowledged once durable, in the order they
 * came. gRPC hands a call's messages over one at a time and asks for the next only when
 * {@link #onNext} returns, so a node that is slow to apply holds the router back instead of
 * buffering its windows.
 *
 * <h2>The fence</h2>
 * Each window carries the epoch it was routed by and is counted in flight under it while it is
 * applied ({@link NodeState#admit}), as a unary call stamped with the header is for its length:
 * a stream that lives through a map change neither slips past the fence nor keeps the node's
 * SetEpoch waiting until it ends.
 *
 * <p>The first failure closes the stream with its status; later windows are dropped unapplied.
 */
final class BucketWindows implements StreamObserver<ShardBucketWindow> {
    private final ToLongFunction<ShardBucketAddManyRequest> addMany;
    private final ShardNode node;
    private final NodeState state;
    private final StreamObserver<ShardBucketWindowAck> out;
    private boolean failed;

    /** {@code addMany} checks and applies one window's additions, answering how many buckets changed. */
    BucketWindows(ToLongFunction<ShardBucketAddManyRequest> addMany, ShardNode node, NodeState state, StreamObserver<ShardBucketWindowAck> out) {
        this.addMany = addMany;
        this.node = node;
        this.state = state;
        this.out = out;
    }

    @Override
    public void onNext(ShardBucketWindow window) {
        if (failed) {
            return;
        }
        long changed;
        try {
            changed = apply(window);
        } catch (RuntimeException e) {
            failed = true;
            out.onError(Calls.asStatus(e));
            return;
        }
        out.onNext(ShardBucketWindowAck.newBuilder().setSequence(window.getSequence()).setChanged(changed).build());
    }

    private long apply(ShardBucketWindow window) {
        long epoch = window.getEpoch();
        if (window.getFenced() && !state.admit(epoch)) {
            throw EpochFence.stale(state, epoch).asRuntimeException();
        }
        try {
            long changed = addMany.applyAsLong(window.getAdditions());
            node.awaitDurable();
            return changed;
        } finally {
            if (window.getFenced()) {
                state.finished(epoch);
            }
        }
    }

    /** The router went away: what was applied stays (every window may be sent again). */
    @Override
    public void onError(Throwable t) {
        failed = true;
    }

    @Override
    public void onCompleted() {
        if (!failed) {
            out.onCompleted();
        }
    }
}
