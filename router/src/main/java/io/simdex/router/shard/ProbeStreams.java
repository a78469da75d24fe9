package io.simdex.router.shard;

import io.grpc.ManagedChannel;
import io.simdex.proto.v1.ShardProbeManyRequest;
import io.simdex.proto.v1.ShardProbeManyResponse;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A router's ProbeStream calls to one node, shared by every epoch's view of it: a query's
 * ProbeMany to the node goes as the next request on the least busy of {@link #STREAMS} streams
 * ({@link ProbeStream}) instead of as a call of its own.
 *
 * <p>Why: a unary call costs both sides its set-up (headers, a new HTTP/2 stream, its flow-control
 * windows) whatever it carries. A profile of a one-node cluster answering queries of 100 probes
 * put 23% of the router's CPU in header and stream set-up and 7% in flow control, and 13% of the
 * node's in headers; on a stream a request is one message. The node answers a stream's requests
 * one after another, so several streams let a big request be answered beside small ones.
 *
 * <p>A stream that failed is replaced at the next request. {@link #supported} turns false for
 * good once the node answers UNIMPLEMENTED (a node of an older version): its requests go unary.
 */
final class ProbeStreams implements AutoCloseable {
    /** Streams per node. */
    static final int STREAMS = 4;
    /** How often unanswered requests are checked against the read timeout. */
    private static final long SWEEP_MILLIS = 100;
    private static final ScheduledExecutorService SWEEPER = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "simdex-probe-stream-sweep");
        t.setDaemon(true);
        return t;
    });

    private final ManagedChannel channel;
    /** Guarded by this; a slot is null until first used. */
    private final ProbeStream[] streams = new ProbeStream[STREAMS];
    private volatile boolean supported = true;
    /** Guarded by this. */
    private ScheduledFuture<?> sweep;
    private boolean closed;

    ProbeStreams(ManagedChannel channel) {
        this.channel = channel;
    }

    boolean supported() {
        return supported;
    }

    /** The node has no ProbeStream: every later request goes unary. */
    void unsupported() {
        supported = false;
    }

    /** Sends {@code probes} on an idle stream, else on a new one while there are fewer than {@link #STREAMS}, else on the least busy. */
    CompletableFuture<ShardProbeManyResponse> send(ShardProbeManyRequest probes, long epoch, boolean fenced, long readTimeoutMillis) {
        return pick().send(probes, epoch, fenced, readTimeoutMillis);
    }

    private synchronized ProbeStream pick() {
        if (closed) {
            // The channel is closing too: a stream opened on it fails its requests at once.
            return new ProbeStream(channel);
        }
        if (sweep == null) {
            sweep = SWEEPER.scheduleWithFixedDelay(this::sweep, SWEEP_MILLIS, SWEEP_MILLIS, TimeUnit.MILLISECONDS);
        }
        int best = -1;
        int free = -1;
        for (int i = 0; i < STREAMS; i++) {
            ProbeStream s = streams[i];
            if (s == null || !s.usable()) {
                free = free < 0 ? i : free;
            } else if (best < 0 || s.load() < streams[best].load()) {
                best = i;
            }
        }
        if (best >= 0 && (streams[best].load() == 0 || free < 0)) {
            return streams[best];
        }
        // Every stream has requests waiting (or none works): another one, while there are fewer than STREAMS.
        streams[free] = new ProbeStream(channel);
        return streams[free];
    }

    private void sweep() {
        ProbeStream[] now;
        synchronized (this) {
            now = streams.clone();
        }
        long t = System.nanoTime();
        for (ProbeStream s : now) {
            if (s != null) {
                s.sweep(t);
            }
        }
    }

    /** Cancels every stream, so the channel can shut down without waiting for them. */
    @Override
    public void close() {
        ProbeStream[] open;
        synchronized (this) {
            closed = true;
            if (sweep != null) {
                sweep.cancel(false);
            }
            open = streams.clone();
        }
        for (ProbeStream s : open) {
            if (s != null) {
                s.close();
            }
        }
    }
}
