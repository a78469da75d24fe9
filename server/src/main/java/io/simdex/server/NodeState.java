package io.simdex.server;

import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
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

    /** Calls admitted by the fence and not finished yet, by the epoch they were stamped with. */
    private final ConcurrentSkipListMap<Long, AtomicInteger> inFlight = new ConcurrentSkipListMap<>(Long::compareUnsigned);

    /**
     * Counts a call stamped {@code stamped} as running, then says whether it may run. Counting
     * first is what lets {@link #raiseEpochAndDrain} see every call that was admitted under an
     * older epoch: either the call's check saw the new epoch, or its count was already visible.
     */
    boolean admit(long stamped) {
        inFlight.computeIfAbsent(stamped, e -> new AtomicInteger()).incrementAndGet();
        if (Long.compareUnsigned(stamped, epoch()) < 0) {
            finished(stamped);
            return false;
        }
        return true;
    }

    void finished(long stamped) {
        AtomicInteger n = inFlight.get(stamped);
        if (n != null) {
            n.decrementAndGet();
        }
    }

    /**
     * Raises the epoch, then waits (up to {@code timeoutMillis}) until no call admitted under an
     * older epoch is still running: after this returns, every write on this node came from a
     * router that knew the new map (so a copy started now cannot miss one). True if drained.
     */
    public boolean raiseEpochAndDrain(long proposed, long timeoutMillis) throws InterruptedException {
        long now = raiseEpoch(proposed);
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        while (true) {
            boolean busy = inFlight.headMap(now).values().stream().anyMatch(n -> n.get() > 0);
            if (!busy) {
                inFlight.headMap(now).entrySet().removeIf(e -> e.getValue().get() == 0);
                return true;
            }
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(1);
        }
    }

    public boolean readable() {
        return readable;
    }

    public void readable(boolean readable) {
        this.readable = readable;
    }
}
