package io.simdex.server;

import java.util.concurrent.atomic.AtomicLong;

/**
 * What a shard node knows of its place in a cluster: its id, the newest placement epoch it has
 * been told of (only ever raised; {@link EpochFence} refuses calls stamped with an older one),
 * and whether it serves reads (false while it catches up after a restart; writes still apply).
 */
public final class NodeState {
    private final String nodeId;
    private final AtomicLong epoch;
    private volatile boolean readable;

    public NodeState(String nodeId, long epoch, boolean readable) {
        this.nodeId = nodeId;
        this.epoch = new AtomicLong(epoch);
        this.readable = readable;
    }

    /** A node outside any cluster: unnamed, epoch 0, readable. */
    public static NodeState standalone() {
        return new NodeState("", 0, true);
    }

    public String nodeId() {
        return nodeId;
    }

    /** The placement epoch, an unsigned 64-bit number. */
    public long epoch() {
        return epoch.get();
    }

    /** Raises the epoch to {@code proposed} if that is newer (unsigned); returns the epoch after. */
    public long raiseEpoch(long proposed) {
        return epoch.accumulateAndGet(proposed, (current, p) -> Long.compareUnsigned(p, current) > 0 ? p : current);
    }

    public boolean readable() {
        return readable;
    }

    public void readable(boolean readable) {
        this.readable = readable;
    }
}
