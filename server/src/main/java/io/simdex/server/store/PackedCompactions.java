package io.simdex.server.store;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The thread that compacts packed tables ({@link PackedBuckets#compact}), one at a time: a
 * compaction writes a whole run, and two at once would only share the disk. A table already
 * waiting or compacting is not queued again.
 *
 * <p>Tables are compacted when their delta is due ({@link #submit}), and also once they have
 * had no write for {@link #IDLE} ({@link #afterWrite}): after a load or a burst, the delta's
 * heap and its log's 16 bytes a residue go, and probes read one structure instead of two.
 */
final class PackedCompactions {
    private static final Logger LOG = LoggerFactory.getLogger(PackedCompactions.class);
    /** How long tables go without a write before their delta is packed though not due ({@link PackedBuckets#idleCompactionDue}). */
    static final Duration IDLE = Duration.ofSeconds(10);
    private static final ScheduledExecutorService THREAD = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "packed-compaction");
        t.setDaemon(true);
        return t;
    });
    private static final Set<PackedBuckets> QUEUED = Collections.synchronizedSet(Collections.newSetFromMap(new IdentityHashMap<>()));

    private PackedCompactions() {
    }

    static void submit(PackedBuckets tables) {
        if (!QUEUED.add(tables)) {
            return;
        }
        THREAD.execute(() -> {
            try {
                // Again while due: writes made during one compaction (a bulk load's burst) can make the next due.
                do {
                    tables.compact();
                } while (tables.compactionDue());
            } catch (IllegalStateException closed) {
                // closed meanwhile: what the compaction wrote goes when the store next opens
            } catch (RuntimeException e) {
                LOG.error("compaction of packed tables failed; they keep their delta", e);
            } finally {
                QUEUED.remove(tables);
            }
        });
    }

    /** Notes a write to {@code tables}: they are compacted once {@link #IDLE} passes without another. */
    static void afterWrite(PackedBuckets tables) {
        afterWrite(tables, IDLE.toNanos());
    }

    /**
     * As {@link #afterWrite(PackedBuckets)}, idle after {@code idleNanos}. One check a table is
     * scheduled at a time: a write while it waits only moves the time it looks at.
     */
    static void afterWrite(PackedBuckets tables, long idleNanos) {
        long now = System.nanoTime();
        // Stored at most once a hundredth of the idle time: a store on every add would take the
        // line from the other writers' cores, and the check needs no finer time.
        if (now - tables.lastWriteNanos > idleNanos / 100) {
            tables.lastWriteNanos = now;
        }
        // Read first: a failing compare-and-set still takes the line from the other writers' cores.
        if (!tables.idleCheckScheduled.get() && tables.idleCheckScheduled.compareAndSet(false, true)) {
            THREAD.schedule(() -> idleCheck(tables, idleNanos), idleNanos, TimeUnit.NANOSECONDS);
        }
    }

    private static void idleCheck(PackedBuckets tables, long idleNanos) {
        long quiet = System.nanoTime() - tables.lastWriteNanos;
        if (quiet < idleNanos) {
            THREAD.schedule(() -> idleCheck(tables, idleNanos), idleNanos - quiet, TimeUnit.NANOSECONDS);
            return;
        }
        // Cleared before the compaction, so that a write from now on schedules the next check.
        tables.idleCheckScheduled.set(false);
        if (tables.idleCompactionDue()) {
            submit(tables);
        }
    }
}
