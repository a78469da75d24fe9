package io.simdex.server;

import io.simdex.core.Partitions;

import java.util.Collection;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The pulls running on this node, and the per-partition locks that keep a local delete and a
 * copied record from interleaving.
 *
 * <h2>Why tombstones</h2>
 * A pull copies what the source held when its export read each key, which may predate a delete
 * this node has applied since the pull began. Copying that record would resurrect it. So while
 * a pull of partitions P runs, every delete here of a key in P is recorded in the pull's
 * {@link PullTombstones}, and the pull skips copied records they cover. Writes made here stay:
 * adds are set unions the copy cannot undo, and a rebind is recorded like a delete, since the
 * copied binding would overwrite it. A mirroring pull, which removes what the source lacks,
 * also has the adds of the keys it may remove recorded ({@link #watch}), so it keeps them.
 *
 * <h2>Atomicity</h2>
 * A local change of a key (record, then change) and a copied record (check, then write) both
 * hold the lock of the key's partition, so a copy cannot land between a delete's record and its
 * removal. Starting a pull, dropping a URL job and expiring generations concern every partition
 * and take every lock in ascending order; nothing else holds two, so nothing deadlocks.
 */
final class ActivePulls {
    /** A partition's lock; closing it unlocks, for try-with-resources. */
    static final class Stripe extends ReentrantLock implements AutoCloseable {
        @Override
        public void close() {
            unlock();
        }
    }

    private final Stripe[] stripes = new Stripe[Partitions.COUNT];
    private final CopyOnWriteArrayList<PullTombstones> pulls = new CopyOnWriteArrayList<>();
    /** Whether a pull watches keys for adds ({@link #watch}): adds take their partition's lock only then. */
    private volatile boolean watching;

    ActivePulls() {
        for (int i = 0; i < stripes.length; i++) {
            stripes[i] = new Stripe();
        }
    }

    /** Registers a pull of {@code partitions}: local changes from now on are recorded for it. */
    PullTombstones begin(PartitionSet partitions) {
        PullTombstones t = new PullTombstones(partitions);
        underEveryLock(() -> pulls.add(t));
        return t;
    }

    /** Forgets a finished (or failed) pull's tombstones. */
    void end(PullTombstones t) {
        underEveryLock(() -> {
            pulls.remove(t);
            watching = pulls.stream().anyMatch(PullTombstones::isWatching);
            return null;
        });
    }

    /**
     * Makes {@code t} watch {@code keys}: from now on an add of one of them here is recorded in
     * {@code t} under its partition's lock ({@link #adding}). An add that checked
     * {@link #watching()} just before is not recorded; the caller gives such writes time to
     * reach every replica before it trusts what it removes.
     */
    void watch(PullTombstones t, Collection<?> keys) {
        underEveryLock(() -> {
            t.watch(keys);
            watching = true;
            return null;
        });
    }

    /** Whether an add must go through {@link #adding}: false but while a mirroring pull removes records. */
    boolean watching() {
        return watching;
    }

    /**
     * Locks {@code partition} and records {@code key} (of that partition) in every pull that
     * watches it: call before adding the key while {@link #watching()}, and add it before closing
     * the stripe.
     */
    Stripe adding(int partition, Object key) {
        return recording(partition, key, true);
    }

    /** Locks {@code partition}: for checking a copied record against the tombstones and writing it. */
    Stripe lock(int partition) {
        Stripe s = stripes[partition];
        s.lock();
        return s;
    }

    /**
     * Locks {@code partition} and records {@code key} (of that partition) in every pull of it:
     * call before deleting or rebinding the key, and change it before closing the stripe.
     */
    Stripe changing(int partition, Object key) {
        return recording(partition, key, false);
    }

    /** Locks {@code partition} and records {@code key} in every pull of it ({@code onlyWatched}: that watches the key). */
    private Stripe recording(int partition, Object key, boolean onlyWatched) {
        Stripe s = lock(partition);
        for (PullTombstones t : pulls) {
            if (t.covers(partition) && (!onlyWatched || t.watches(key))) {
                t.add(key);
            }
        }
        return s;
    }

    /** Records a change of every partition (a URL job drop, an expiry) in every pull, then makes it, under every lock. */
    <T> T changingAll(Consumer<PullTombstones> record, Supplier<T> change) {
        return underEveryLock(() -> {
            pulls.forEach(record);
            return change.get();
        });
    }

    private <T> T underEveryLock(Supplier<T> action) {
        int locked = 0;
        try {
            for (; locked < stripes.length; locked++) {
                stripes[locked].lock();
            }
            return action.get();
        } finally {
            for (int i = locked - 1; i >= 0; i--) {
                stripes[i].unlock();
            }
        }
    }
}
