package io.simdex.ops;

import java.time.Duration;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Waiting on a condition with a deadline: {@code observe} is polled every 200 ms until
 * {@code done} accepts what it returned. A timeout fails with what was awaited, for how long,
 * and what was last seen (the last value, or the exception the last poll threw). An
 * {@link AssertionError} thrown by {@code observe} (a process that exited, say) fails at once.
 */
final class Await {
    private static final long POLL_MILLIS = 200;

    private Await() {
    }

    /** The outcome of {@link #poll}: whether the condition held in time, and the last observation. */
    record Outcome<T>(String what, boolean met, T last, RuntimeException lastError, double seconds) {
        String lastSeen() {
            return lastError != null ? "error " + lastError : String.valueOf(last);
        }

        String describe() {
            return (met ? "met after " : "timed out after ") + String.format("%.1f s", seconds) + " waiting for: " + what
                    + "; last seen: " + lastSeen();
        }
    }

    /** Polls until {@code done} holds or {@code timeout} passes, and says which. */
    static <T> Outcome<T> poll(String what, Duration timeout, Supplier<T> observe, Predicate<T> done) throws InterruptedException {
        long start = System.nanoTime();
        long deadline = start + timeout.toNanos();
        T last = null;
        RuntimeException lastError = null;
        while (true) {
            try {
                last = observe.get();
                lastError = null;
                if (done.test(last)) {
                    return new Outcome<>(what, true, last, null, (System.nanoTime() - start) / 1e9);
                }
            } catch (RuntimeException notYet) {
                lastError = notYet;
            }
            if (System.nanoTime() - deadline >= 0) {
                return new Outcome<>(what, false, last, lastError, (System.nanoTime() - start) / 1e9);
            }
            Thread.sleep(POLL_MILLIS);
        }
    }

    /** Polls until {@code done} holds and returns the value that satisfied it; fails on timeout with {@code context} appended. */
    static <T> T until(String what, Duration timeout, Supplier<T> observe, Predicate<T> done, Supplier<String> context)
            throws InterruptedException {
        Outcome<T> o = poll(what, timeout, observe, done);
        if (!o.met()) {
            throw new AssertionError(o.describe() + context.get());
        }
        return o.last();
    }
}
