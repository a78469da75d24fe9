package io.simdex.core.io;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Something done at most once per interval by whichever caller finds the interval over first
 * (the others read one volatile): a file looked at for changes by the calls that use it, with no
 * thread of its own.
 */
public final class Cadence {
    private final long nanos;
    private final AtomicLong next;

    /** The first interval starts now. */
    public Cadence(Duration every) {
        this.nanos = every.toNanos();
        this.next = new AtomicLong(System.nanoTime() + nanos);
    }

    /** True for one caller once the interval is over, which starts the next. */
    public boolean due() {
        long now = System.nanoTime();
        long n = next.get();
        return now - n >= 0 && next.compareAndSet(n, now + nanos);
    }
}
