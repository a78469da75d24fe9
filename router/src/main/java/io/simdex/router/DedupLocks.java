package io.simdex.router;

import io.simdex.core.BlockTables;
import io.simdex.core.Hashing;

import java.util.Arrays;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Serialises check-and-insert of documents that could be near-duplicates, in this router.
 *
 * <p>Two fingerprints within distance 3 share at least one (table, block) bucket key (see
 * {@link BlockTables}). Each document's critical section holds the locks of all four of its
 * bucket keys, so any two documents that could collide exclude each other, while unrelated
 * documents proceed in parallel. Locks are striped and taken in ascending order, so batches
 * cannot deadlock. Across several routers this is not enough: that needs the cluster protocol.
 */
final class DedupLocks {
    private static final int STRIPES = 1 << 14;

    private final ReentrantLock[] locks = new ReentrantLock[STRIPES];

    DedupLocks() {
        for (int i = 0; i < STRIPES; i++) {
            locks[i] = new ReentrantLock();
        }
    }

    /** The sorted, distinct stripes covering every bucket key of {@code fps} in {@code collection}. */
    int[] stripesFor(String collection, long[] fps) {
        long salt = Hashing.hash(collection);
        int[] stripes = new int[fps.length * BlockTables.TABLES];
        int n = 0;
        for (long fp : fps) {
            for (int t = 0; t < BlockTables.TABLES; t++) {
                stripes[n++] = Hashing.reduce(Hashing.mix64(salt ^ BlockTables.bucketKey(t, BlockTables.block(fp, t))), STRIPES);
            }
        }
        return Arrays.stream(stripes).sorted().distinct().toArray();
    }

    void lock(int[] stripes) {
        for (int s : stripes) {
            locks[s].lock();
        }
    }

    void unlock(int[] stripes) {
        for (int i = stripes.length - 1; i >= 0; i--) {
            locks[stripes[i]].unlock();
        }
    }
}
