package io.simdex.router.shard;

import io.grpc.ManagedChannel;
import io.simdex.proto.v1.ShardBucketAddManyRequest;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The BucketAddStream calls of one bulk load: one per node, opened at the node's first window
 * and half-closed by {@link #close} when the load ends. While a scope is {@link #enter entered}
 * on a thread, a {@link RemoteShardClient} asked there to add to buckets sends the additions as
 * the next window on its node's stream ({@link NodeStream}) instead of as a BucketAddMany call;
 * everything else about the write (its ReplicaSet quorum, marks, the WriteBatch merging each
 * node's share into one message) is as for the unary call, whose answer the window's
 * acknowledgement stands in for.
 *
 * <h2>Why a window's marks are its own</h2>
 * A window is acknowledged to its sender later than the request that sent it ends, so inside a
 * scope no {@link RequestMarks} scope is open: a replica a window leaves behind is durably
 * marked before that window's write completes, as for a write outside any request.
 *
 * <p>A load's windows are sent from one thread at a time (gRPC calls a stream's observer
 * serially); answers arrive on network threads.
 */
public final class BucketStreams implements AutoCloseable {
    /** Windows a node may have unacknowledged on one stream before the sender waits. */
    public static final int MAX_UNACKED = 2;
    private static final ThreadLocal<BucketStreams> CURRENT = new ThreadLocal<>();

    private final int maxUnacked;
    private final Map<ManagedChannel, NodeStream> streams = new ConcurrentHashMap<>();
    private final AtomicInteger opened = new AtomicInteger();
    private final AtomicLong waits = new AtomicLong();
    private final AtomicInteger mostUnacked = new AtomicInteger();

    public BucketStreams() {
        this(MAX_UNACKED);
    }

    /** With at most {@code maxUnacked} windows unacknowledged per node (at least 1). */
    public BucketStreams(int maxUnacked) {
        if (maxUnacked < 1) {
            throw new IllegalArgumentException("at least 1 unacknowledged window, not " + maxUnacked);
        }
        this.maxUnacked = maxUnacked;
    }

    /** The scope entered on this thread, or null. */
    static BucketStreams current() {
        return CURRENT.get();
    }

    /** Makes bucket additions on this thread go to these streams until the scope closes; suspends the thread's RequestMarks meanwhile. */
    public Scope enter() {
        return new Scope(this);
    }

    /** An entered scope: close it on the thread that entered it. */
    public static final class Scope implements AutoCloseable {
        private final BucketStreams outer;
        private final RequestMarks marks;

        private Scope(BucketStreams streams) {
            outer = CURRENT.get();
            marks = RequestMarks.suspend();
            CURRENT.set(streams);
        }

        @Override
        public void close() {
            CURRENT.set(outer);
            RequestMarks.resume(marks);
        }
    }

    /** Sends {@code additions} as the next window on the node's stream, opening one if it has none that works. */
    CompletableFuture<Long> send(ManagedChannel node, ShardBucketAddManyRequest additions, long epoch, boolean fenced, long timeoutMillis) {
        NodeStream stream = streams.compute(node, (n, s) -> {
            if (s != null && s.usable()) {
                return s;
            }
            opened.incrementAndGet();
            return new NodeStream(n, maxUnacked, this);
        });
        return stream.send(additions, epoch, fenced, timeoutMillis);
    }

    /** Half-closes every stream: each node ends its call once it has applied what it was sent. */
    @Override
    public void close() {
        streams.values().forEach(NodeStream::finish);
        streams.clear();
    }

    /** Streams opened so far: one per node, more only after one failed. */
    public int opened() {
        return opened.get();
    }

    /** How often a sender waited for a node to acknowledge a window before it could send another. */
    public long waits() {
        return waits.get();
    }

    /** The most windows one node had unacknowledged at once. */
    public int mostUnacked() {
        return mostUnacked.get();
    }

    void waited() {
        waits.incrementAndGet();
    }

    void unacked(int n) {
        mostUnacked.accumulateAndGet(n, Math::max);
    }
}
