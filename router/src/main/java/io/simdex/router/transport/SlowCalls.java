package io.simdex.router.transport;

import io.grpc.Status;
import io.simdex.router.security.RequestSummary;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.SocketAddress;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * The slow-call log: a call whose handling time reaches the threshold is logged (WARN) with
 * what it asked for, so that a slow tail on the dashboard can be traced to its calls: method,
 * handling and queued time, status, the caller's address, and its first request's collection or
 * job and sizes ({@code collection=news documents=1000}). Nothing is built for a call under
 * the threshold. At most {@link #LINES_PER_SECOND} lines a second: an overloaded server makes
 * every call slow, and the lines held back are counted in the next one logged.
 *
 * <p>The threshold is {@code -Dsimdex.slow.call.millis} (default 1000; 0 turns the log off).
 */
public final class SlowCalls {
    static final int LINES_PER_SECOND = 10;
    private static final long DEFAULT_MILLIS = 1000;
    private static final Logger LOG = LoggerFactory.getLogger(SlowCalls.class);
    /** Fields that name what a request is about; every other string field is left out (texts, ids). */
    private static final Set<String> NAMES = Set.of("collection", "job");

    private final long thresholdNanos;
    private final Consumer<String> sink;
    private final LongSupplier clock;
    private long second = Long.MIN_VALUE;
    private int linesThisSecond;
    private long heldBack;

    SlowCalls(long thresholdMillis, Consumer<String> sink, LongSupplier nanoClock) {
        this.thresholdNanos = thresholdMillis <= 0 ? Long.MAX_VALUE : TimeUnit.MILLISECONDS.toNanos(thresholdMillis);
        this.sink = sink;
        this.clock = nanoClock;
    }

    /** The process's log, at the threshold {@code simdex.slow.call.millis} says. */
    static SlowCalls fromSystemProperty() {
        long millis = Long.getLong("simdex.slow.call.millis", DEFAULT_MILLIS);
        if (millis > 0) {
            LOG.info("calls of {} ms or more are logged (-Dsimdex.slow.call.millis)", millis);
        }
        return new SlowCalls(millis, LOG::warn, System::nanoTime);
    }

    /** True when a call that took {@code nanos} is to be logged. */
    boolean isSlow(long nanos) {
        return nanos >= thresholdNanos;
    }

    /** Logs one slow call; {@code queuedNanos} is -1 for a call whose handler never ran, {@code request} null without one. */
    void log(String method, Status status, long nanos, long queuedNanos, SocketAddress peer, Object request, int messages) {
        long held;
        synchronized (this) {
            long now = clock.getAsLong() / 1_000_000_000L;
            if (now != second) {
                second = now;
                linesThisSecond = 0;
            }
            if (++linesThisSecond > LINES_PER_SECOND) {
                heldBack++;
                return;
            }
            held = heldBack;
            heldBack = 0;
        }
        StringBuilder line = new StringBuilder("slow call ").append(method).append(": ").append(millis(nanos)).append(" ms");
        if (queuedNanos >= 0) {
            line.append(" (queued ").append(millis(queuedNanos)).append(" ms)");
        }
        line.append(", ").append(status.getCode());
        if (peer != null) {
            line.append(", from ").append(peer);
        }
        String asked = request instanceof String described ? described : describe(request);
        if (!asked.isEmpty()) {
            line.append(": ").append(asked);
        }
        if (messages > 1) {
            line.append(" (first of ").append(messages).append(" messages)");
        }
        if (held > 0) {
            line.append(" [").append(held).append(" more slow call(s) not logged before this one]");
        }
        sink.accept(line.toString());
    }

    /** A request's collection or job and the size of each list it holds: {@code collection=news documents=1000}. */
    static String describe(Object request) {
        return RequestSummary.of(request, NAMES);
    }

    private static String millis(long nanos) {
        return String.format(Locale.ROOT, "%.1f", nanos / 1e6);
    }
}
