package io.simdex.router.shard;

import io.grpc.ManagedChannel;
import io.simdex.proto.v1.ShardReadAnswer;
import io.simdex.proto.v1.ShardReadRequest;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * A router's ReadStream calls to one node, shared by every epoch's view of it: a query's reads
 * of the node (ProbeMany, ResolveIds) go as the next request on one of up to {@link #STREAMS}
 * streams ({@link ReadStream}) instead of as calls of their own.
 *
 * <p>Why: a unary call costs both sides its set-up (headers, a new HTTP/2 stream, its flow-control
 * windows) whatever it carries. A profile of a one-node cluster answering queries of 100 probes
 * put 23% of the router's CPU in header and stream set-up and 7% in flow control, and 13% of the
 * node's in headers; on a stream a request is one message. The node answers a stream's requests
 * one after another, so several streams let a big request be answered beside small ones; a new
 * one is opened only when every open one has a request waiting.
 *
 * <p>Each stream but the first has a connection of its own when the router gives a way to open
 * them ({@code moreChannels}). A node answers small reads on the network thread that reads them
 * (InlineCalls), and a connection is served by one such thread: on one connection a node's reads
 * use at most one core however many queries wait. A one-node cluster answering queries of 100
 * probes from 8 callers had that thread busy for 62% of the run while the node's other core
 * idled, and the node's share of the machine fell behind the embedded server's as its tables grew.
 *
 * <p>A stream that failed is replaced at the next request. {@link #supported} turns false for
 * good once the node answers UNIMPLEMENTED (a node of an older version): its reads go unary.
 */
final class ReadStreams implements AutoCloseable {
    /** Streams per node. */
    static final int STREAMS = 4;
    /**
     * The read timeout of a router that sets none (a standalone router): a unary call would end
     * at its client's deadline, but a stream's requests stay queued behind a node that stopped
     * answering, so a stream whose oldest request waits this long is failed as hung.
     */
    static final long HUNG_MILLIS = 60_000;
    /** How often unanswered requests are checked against the read timeout. */
    private static final long SWEEP_MILLIS = 100;
    private static final ScheduledExecutorService SWEEPER = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "simdex-read-stream-sweep");
        t.setDaemon(true);
        return t;
    });

    private final ManagedChannel channel;
    /** Opens a stream's own connection to the node; null: every stream on {@link #channel}. */
    private final Supplier<ManagedChannel> moreChannels;
    /** Guarded by this; a slot is null until first used. */
    private final ReadStream[] streams = new ReadStream[STREAMS];
    /** Slot i's connection, opened with its first stream and closed with this; guarded by this. */
    private final ManagedChannel[] channels = new ManagedChannel[STREAMS];
    private volatile boolean supported = true;
    /** Guarded by this. */
    private ScheduledFuture<?> sweep;
    private boolean closed;

    /** The first stream on {@code channel} (not closed here), each other on a connection of its own from {@code moreChannels} (null: on {@code channel} too). */
    ReadStreams(ManagedChannel channel, Supplier<ManagedChannel> moreChannels) {
        this.channel = channel;
        this.moreChannels = moreChannels;
    }

    boolean supported() {
        return supported;
    }

    /** The node has no ReadStream: every later request goes unary. */
    void unsupported() {
        supported = false;
    }

    /** Sends {@code read} on an idle stream, else on a new one while there are fewer than {@link #STREAMS}, else on the least busy. */
    CompletableFuture<ShardReadAnswer> send(ShardReadRequest.Builder read, long readTimeoutMillis) {
        return pick().send(read, readTimeoutMillis > 0 ? readTimeoutMillis : HUNG_MILLIS);
    }

    private synchronized ReadStream pick() {
        if (closed) {
            // The channel is closing too: a stream opened on it fails its requests at once.
            return new ReadStream(channel);
        }
        if (sweep == null) {
            sweep = SWEEPER.scheduleWithFixedDelay(this::sweep, SWEEP_MILLIS, SWEEP_MILLIS, TimeUnit.MILLISECONDS);
        }
        int best = -1;
        int free = -1;
        for (int i = 0; i < STREAMS; i++) {
            ReadStream s = streams[i];
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
        streams[free] = new ReadStream(channelOf(free));
        return streams[free];
    }

    /** Slot {@code i}'s connection; a replaced stream reuses it, as gRPC reconnects a channel itself. Guarded by this. */
    private ManagedChannel channelOf(int i) {
        if (i == 0 || moreChannels == null) {
            return channel;
        }
        if (channels[i] == null) {
            channels[i] = moreChannels.get();
        }
        return channels[i];
    }

    private void sweep() {
        ReadStream[] now;
        synchronized (this) {
            now = streams.clone();
        }
        long t = System.nanoTime();
        for (ReadStream s : now) {
            if (s != null) {
                s.sweep(t);
            }
        }
    }

    /** After a stream broke (UNAVAILABLE): every connection of the node's streams reconnects at its next use instead of waiting out its backoff. */
    void resetConnectBackoff() {
        channel.resetConnectBackoff();
        ManagedChannel[] own;
        synchronized (this) {
            own = channels.clone();
        }
        for (ManagedChannel c : own) {
            if (c != null) {
                c.resetConnectBackoff();
            }
        }
    }

    /** Cancels every stream, so the channel can shut down without waiting for them, and shuts the streams' own connections down. */
    @Override
    public void close() {
        ReadStream[] open;
        ManagedChannel[] own;
        synchronized (this) {
            closed = true;
            if (sweep != null) {
                sweep.cancel(false);
            }
            open = streams.clone();
            own = channels.clone();
        }
        for (ReadStream s : open) {
            if (s != null) {
                s.close();
            }
        }
        for (ManagedChannel c : own) {
            if (c != null) {
                c.shutdown();
            }
        }
    }
}
