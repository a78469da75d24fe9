package io.simdex.loadtest.run;

import com.google.common.util.concurrent.ListenableFuture;
import com.google.common.util.concurrent.MoreExecutors;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The two ways of applying load.
 *
 * <p><b>Closed loop</b>: C callers, each sending its next call when the previous answers. The
 * rate adapts to the server, so latency is service time and the loop cannot show queueing: use it
 * for "how fast can it go" and for latency at a fixed concurrency.
 *
 * <p><b>Open loop</b>: call i is due at {@code start + i / rate} whatever happened before, and its
 * latency is measured from that due time. A stall of the server delays every call due during the
 * stall, and each of them records the wait: the coordinated omission a closed loop hides
 * (Tene, "How NOT to Measure Latency", 2013). Calls in flight are capped (default 10,000) so an
 * overloaded server cannot exhaust memory; waiting for the cap also counts as latency.
 */
public final class LoadLoop {
    /** Extra time allowed for calls in flight at the end of a run. */
    private static final long DRAIN_NANOS = TimeUnit.SECONDS.toNanos(30);
    /** Default cap on open-loop calls in flight. */
    public static final int MAX_IN_FLIGHT = 10_000;

    /** Stop after {@code requests} calls (0: no count limit) or {@code nanos}, whichever comes first. */
    public record Bound(long requests, long nanos) {
        boolean countReached(long seq) {
            return requests > 0 && seq >= requests;
        }
    }

    private LoadLoop() {
    }

    /** {@code concurrency} callers, back to back. */
    public static RunResult closed(Workload workload, int concurrency, Bound bound) throws InterruptedException {
        if (concurrency < 1 || concurrency > 10_000) {
            throw new IllegalArgumentException("concurrency must be 1..10000, was " + concurrency);
        }
        return new Closed(workload, concurrency, bound).run();
    }

    /** A fixed schedule of {@code rate} calls per second. */
    public static RunResult open(Workload workload, double rate, Bound bound, int maxInFlight) throws InterruptedException {
        if (!(rate > 0) || rate > 10_000_000) {
            throw new IllegalArgumentException("rate must be > 0 and <= 10,000,000 calls/s, was " + rate);
        }
        Tally tally = new Tally();
        Semaphore window = new Semaphore(maxInFlight);
        long start = System.nanoTime();
        double period = 1e9 / rate;
        for (long i = 0; !bound.countReached(i); i++) {
            long due = start + (long) (i * period);
            if (due - (start + bound.nanos()) >= 0) {
                break;
            }
            waitUntil(due);
            window.acquire();
            tally.lag(System.nanoTime() - due);
            send(workload, i, due, tally, window);
        }
        window.tryAcquire(maxInFlight, DRAIN_NANOS, TimeUnit.NANOSECONDS);
        return tally.result("open", 0, rate, workload.itemsPerCall(), System.nanoTime() - start);
    }

    private static void send(Workload workload, long seq, long due, Tally tally, Semaphore window) {
        ListenableFuture<?> f;
        try {
            f = workload.call(seq);
        } catch (RuntimeException e) {
            tally.failed(e);
            window.release();
            return;
        }
        f.addListener(() -> {
            tally.complete(f, due);
            window.release();
        }, MoreExecutors.directExecutor());
    }

    /**
     * Parks until {@code due}. No spinning: on a small machine a spinning dispatcher takes a core
     * from the server it measures. Parking wakes some 50-100 us late on Linux; calls that came
     * due meanwhile go out back to back, and the lateness is in their latency and in the
     * dispatch lag the report gives.
     */
    private static void waitUntil(long due) {
        for (long left = due - System.nanoTime(); left > 0; left = due - System.nanoTime()) {
            LockSupport.parkNanos(left);
        }
    }

    /** C callers chained through their futures' listeners; no thread per caller. */
    private static final class Closed {
        private final Workload workload;
        private final Bound bound;
        private final Tally tally = new Tally();
        private final AtomicLong next = new AtomicLong();
        private final CountDownLatch callersDone;
        private final int concurrency;
        private long deadline;

        Closed(Workload workload, int concurrency, Bound bound) {
            this.workload = workload;
            this.bound = bound;
            this.concurrency = concurrency;
            this.callersDone = new CountDownLatch(concurrency);
        }

        RunResult run() throws InterruptedException {
            long start = System.nanoTime();
            deadline = start + bound.nanos();
            for (int c = 0; c < concurrency; c++) {
                issue();
            }
            callersDone.await(bound.nanos() + DRAIN_NANOS, TimeUnit.NANOSECONDS);
            return tally.result("closed", concurrency, 0, workload.itemsPerCall(), System.nanoTime() - start);
        }

        /** Sends this caller's next call; loops rather than recursing when a call fails before it is sent. */
        private void issue() {
            while (true) {
                long seq = next.getAndIncrement();
                if (bound.countReached(seq) || System.nanoTime() - deadline >= 0) {
                    callersDone.countDown();
                    return;
                }
                long sent = System.nanoTime();
                ListenableFuture<?> f;
                try {
                    f = workload.call(seq);
                } catch (RuntimeException e) {
                    tally.failed(e);
                    continue;
                }
                if (!f.isDone()) {
                    f.addListener(() -> {
                        tally.complete(f, sent);
                        issue();
                    }, MoreExecutors.directExecutor());
                    return;
                }
                tally.complete(f, sent);
            }
        }
    }
}
