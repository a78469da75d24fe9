package io.simdex.server.store;

import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * A thread that prefetches, until the table is closed, the 68 buckets a probe within distance 1
 * of a random fingerprint of a pool reads (each table's own bucket and 16 neighbours), racing
 * whatever the test does meanwhile; then it checks that the closed table reads nothing.
 */
final class PrefetchRace {
    /** A table's prefetch: {@link BucketTable#prefetch} or {@link PackedBuckets#prefetch}. */
    interface Prefetch {
        int prefetch(int[] tables, long[] fps, int count);
    }

    private final AtomicBoolean closed = new AtomicBoolean();
    private final AtomicLong prefetches = new AtomicLong();
    private final AtomicReference<Throwable> unexpected = new AtomicReference<>();
    private final Thread thread;

    PrefetchRace(long[] pool, long seed, Prefetch table) {
        thread = new Thread(() -> {
            SplittableRandom r = new SplittableRandom(seed);
            int[] tables = new int[68];
            long[] fps = new long[68];
            try {
                while (!closed.get()) {
                    long probe = pool[r.nextInt(pool.length)];
                    for (int i = 0; i < 68; i++) {
                        tables[i] = i / 17;
                        fps[i] = i % 17 == 0 ? probe : probe ^ 1L << (16 * (i / 17) + i % 17 - 1);
                    }
                    table.prefetch(tables, fps, 68);
                    prefetches.incrementAndGet();
                }
                assertEquals(0, table.prefetch(tables, fps, 68), "a closed table reads nothing");
            } catch (Throwable e) {
                unexpected.set(e);
            }
        });
        thread.start();
    }

    /** Prefetches made so far. */
    long prefetches() {
        return prefetches.get();
    }

    /** Call once the table is closed: the thread's last prefetch read nothing, and none failed. */
    void tableClosed() throws InterruptedException {
        closed.set(true);
        thread.join(10_000);
        assertFalse(thread.isAlive());
        assertEquals(null, unexpected.get());
    }
}
