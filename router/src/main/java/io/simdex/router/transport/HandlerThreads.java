package io.simdex.router.transport;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Logger;

/**
 * The threads a public server runs its handlers on. gRPC's default is an unbounded cached pool:
 * under an open-loop load a burst of calls gets a thread each, and on a 2-core host they then
 * share the cores by time slices, so every call of the burst finishes late. A pool of one thread
 * per core queues the burst instead and finishes calls in order: measured with the load
 * generator at half the echo floor's rate (loadtest/REPORT.md, the open-loop target), Query's
 * p99 over three rounds was 2.4x / 1.43x / 1.24x the echo's, against 5.1x / 1.6x / 7.2x.
 *
 * <p>A fixed pool suits servers whose handlers only compute (the embedded default: its shards
 * are in-process and its bucket locks are held by running handlers). A cluster router's handlers
 * wait on remote shards, and a shard node's lock calls wait for other routers' unlock calls, so
 * both keep the unbounded pool unless told otherwise: a full fixed pool there would stall.
 * The servers that only compute also handle their small fingerprint queries on the transport
 * thread, with no hand-off at all, and routers their fingerprint queries, whose handlers only
 * route ({@link InlineCalls}).
 */
public final class HandlerThreads {
    /** Thread count meaning gRPC's unbounded default pool. */
    public static final int UNBOUNDED = 0;
    /** How long a stopping server waits for its handlers after its calls ended. */
    public static final Duration DRAIN = Duration.ofSeconds(30);
    private static final Logger LOG = Logger.getLogger(HandlerThreads.class.getName());

    private HandlerThreads() {
    }

    /** One thread per core: the default of servers whose handlers do not wait. */
    public static int perCore() {
        return Runtime.getRuntime().availableProcessors();
    }

    /** {@code threads} as given on a command line, one per core when not given. */
    public static int orPerCore(Integer threads) {
        return threads == null ? perCore() : threads;
    }

    /** A fixed pool of {@code threads} daemon threads named {@code name}-1, -2, ..., or null for {@link #UNBOUNDED}. */
    public static ExecutorService pool(int threads, String name) {
        if (threads < 0) {
            throw new IllegalArgumentException("handler threads must be >= 0 (0: unbounded), not " + threads);
        }
        if (threads == UNBOUNDED) {
            return null;
        }
        return Executors.newFixedThreadPool(threads, daemons(name));
    }

    /**
     * An unbounded pool of daemon threads named {@code name}-1, -2, ..., idle ones ending after a
     * minute: gRPC's default pool, named, for a server that also handles calls in place
     * ({@link InlineCalls} needs a pool to move the others to) and whose handlers may wait.
     */
    public static ExecutorService unbounded(String name) {
        return Executors.newCachedThreadPool(daemons(name));
    }

    /** Daemon threads named {@code name}-1, -2, ... */
    private static ThreadFactory daemons(String name) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, name + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    /**
     * Stops {@code pool} after its server stopped, waiting up to {@link #DRAIN} for what is still
     * queued: a cancelled call ends there (a BulkLoad applies the batches it holds), and the
     * server's awaitTermination does not wait for it. A server closes its stores only after this,
     * so no handler writes to a closed map. Returns whether the pool finished in time.
     */
    public static boolean stop(ExecutorService pool) {
        pool.shutdown();
        try {
            if (pool.awaitTermination(DRAIN.toMillis(), TimeUnit.MILLISECONDS)) {
                return true;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        LOG.warning("handler threads still busy " + DRAIN.toSeconds() + " s after the server stopped: closing the stores under them");
        return false;
    }
}
