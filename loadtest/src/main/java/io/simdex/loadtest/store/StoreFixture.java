package io.simdex.loadtest.store;

import io.simdex.core.io.FileTrees;
import io.simdex.fingerprint.BlockTables;
import io.simdex.loadtest.gen.Fingerprints;
import io.simdex.server.store.BucketTable;
import io.simdex.server.store.CollectionStore;
import io.simdex.server.store.StoreSizing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.SplittableRandom;

/** The data and the store both store benchmarks (the command and JMH) measure. */
public final class StoreFixture {
    /** Typical id length the doc maps are sized for; the benchmark writes no ids. */
    private static final int AVERAGE_ID_BYTES = 24;

    private StoreFixture() {
    }

    /** Stored fingerprints 0..count-1 of {@code seed}. */
    public static long[] stored(long seed, int count) {
        long[] fps = new long[count];
        for (int i = 0; i < count; i++) {
            fps[i] = Fingerprints.stored(seed, i);
        }
        return fps;
    }

    /** {@code queries} probes planted at distances 0..5 (cycling) from the stored set. */
    public static long[] probes(long seed, int storedCount, int queries) {
        SplittableRandom random = new SplittableRandom(seed ^ 0x9e0be5L);
        long[] probes = new long[queries];
        for (int i = 0; i < queries; i++) {
            probes[i] = Fingerprints.planted(seed, storedCount, i, random).fingerprint();
        }
        return probes;
    }

    /**
     * A fresh store in {@code dir} (emptied first) sized as a single shard owning all 4 x 65,536
     * buckets for {@code fps.length} fingerprints, with every fingerprint added to its 4 buckets.
     */
    public static CollectionStore load(Path dir, long[] fps) {
        return load(dir, fps, fps.length);
    }

    /** As {@link #load(Path, long[])}, the store sized for {@code expected} fingerprints: fewer than it gets, it grows. */
    public static CollectionStore load(Path dir, long[] fps, long expected) {
        delete(dir);
        CollectionStore store = CollectionStore.open(dir, StoreSizing.forShare(expected, 1, AVERAGE_ID_BYTES));
        BucketTable buckets = store.buckets();
        for (long fp : fps) {
            for (int t = 0; t < BlockTables.TABLES; t++) {
                buckets.add(t, fp);
            }
        }
        return store;
    }

    /** Removes {@code dir} and everything under it, if it exists. */
    public static void delete(Path dir) {
        try {
            FileTrees.delete(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + dir, e);
        }
    }
}
