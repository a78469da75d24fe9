package io.simdex.server;

import io.simdex.server.store.BucketTable;
import io.simdex.server.store.CollectionStore;
import io.simdex.server.store.DocMaps;
import io.simdex.server.store.MatchBuffer;
import io.simdex.server.store.StoreSizing;

import java.io.Closeable;
import java.nio.file.Path;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * One shard: the collections' stores under {@code dataDir/<collection>/}, opened on first use.
 * The operations are the shard protocol of {@code shard.proto}; the router calls them directly
 * in one JVM and through {@link ShardService} across processes. Every write is idempotent.
 * Callers (the router, or the gRPC service) have validated their arguments.
 */
public final class ShardNode implements Closeable {
    private final Path dataDir;
    private final Function<String, StoreSizing> sizing;
    private final ConcurrentHashMap<String, CollectionStore> stores = new ConcurrentHashMap<>();
    private final ThreadLocal<MatchBuffer> buffers = ThreadLocal.withInitial(MatchBuffer::new);
    private final BucketLocks locks = new BucketLocks();

    /** @param sizing how to size a collection's maps when this shard first creates them */
    public ShardNode(Path dataDir, Function<String, StoreSizing> sizing) {
        this.dataDir = dataDir;
        this.sizing = sizing;
    }

    public Path dataDir() {
        return dataDir;
    }

    CollectionStore store(String collection) {
        return stores.computeIfAbsent(collection, c -> CollectionStore.open(dataDir.resolve(c), sizing.apply(c)));
    }

    /** For each fingerprint, the stored fingerprints of its bucket in {@code table} within {@code maxDistance}. */
    public long[][] probe(String collection, int table, long[] fps, int maxDistance) {
        BucketTable buckets = store(collection).buckets();
        MatchBuffer buffer = buffers.get();
        long[][] out = new long[fps.length][];
        for (int i = 0; i < fps.length; i++) {
            buffer.clear();
            buckets.probe(table, fps[i], maxDistance, buffer);
            out[i] = buffer.toArray();
        }
        return out;
    }

    /** Probes one fingerprint into a caller's buffer: the in-process fast path, no result arrays. */
    public void probe(String collection, int table, long fp, int maxDistance, MatchBuffer out) {
        store(collection).buckets().probe(table, fp, maxDistance, out);
    }

    public int bucketAdd(String collection, int table, long[] fps) {
        BucketTable buckets = store(collection).buckets();
        int changed = 0;
        for (long fp : fps) {
            changed += buckets.add(table, fp) ? 1 : 0;
        }
        return changed;
    }

    public int bucketRemove(String collection, int table, long[] fps) {
        BucketTable buckets = store(collection).buckets();
        int changed = 0;
        for (long fp : fps) {
            changed += buckets.remove(table, fp) ? 1 : 0;
        }
        return changed;
    }

    /** id -> fingerprint for each pair; returns the previous bindings. */
    public Previous bindIds(String collection, String[] ids, long[] fps) {
        DocMaps docs = store(collection).docs();
        Previous out = new Previous(ids.length);
        for (int i = 0; i < ids.length; i++) {
            out.set(i, docs.bind(ids[i], fps[i]));
        }
        return out;
    }

    public Previous unbindIds(String collection, String[] ids) {
        DocMaps docs = store(collection).docs();
        Previous out = new Previous(ids.length);
        for (int i = 0; i < ids.length; i++) {
            out.set(i, docs.unbind(ids[i]));
        }
        return out;
    }

    /** Adds ids[i] to fps[i]; flag i = fps[i] had no ids before. */
    public boolean[] attachIds(String collection, long[] fps, String[] ids) {
        DocMaps docs = store(collection).docs();
        boolean[] out = new boolean[fps.length];
        for (int i = 0; i < fps.length; i++) {
            out[i] = docs.attach(fps[i], ids[i]);
        }
        return out;
    }

    /** Removes ids[i] from fps[i]; flag i = fps[i] has no ids left. */
    public boolean[] detachIds(String collection, long[] fps, String[] ids) {
        DocMaps docs = store(collection).docs();
        boolean[] out = new boolean[fps.length];
        for (int i = 0; i < fps.length; i++) {
            out[i] = docs.detach(fps[i], ids[i]);
        }
        return out;
    }

    public String[][] resolveIds(String collection, long[] fps) {
        DocMaps docs = store(collection).docs();
        String[][] out = new String[fps.length][];
        for (int i = 0; i < fps.length; i++) {
            out[i] = docs.ids(fps[i]);
        }
        return out;
    }

    /**
     * Locks {@code bucketKeys} of {@code collection} for {@code token} (see {@link BucketLocks});
     * returns the largest stamp on them, or -1 if they stayed busy for {@code waitMillis}.
     */
    public long lockBuckets(String collection, int[] bucketKeys, long token, long leaseMillis, long waitMillis)
            throws InterruptedException {
        return locks.lock(lockKeys(collection, bucketKeys), token, leaseMillis, waitMillis);
    }

    public int unlockBuckets(String collection, int[] bucketKeys, long token, long stamp) {
        return locks.unlock(lockKeys(collection, bucketKeys), token, stamp);
    }

    /** One sorted long per (collection, bucket key); sorting here gives every router the same order. */
    private static long[] lockKeys(String collection, int[] bucketKeys) {
        long salt = io.simdex.core.Hashing.hash(collection) << 20;
        long[] keys = new long[bucketKeys.length];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = salt ^ bucketKeys[i];
        }
        java.util.Arrays.sort(keys);
        return keys;
    }

    public ShardStats stats(String collection) {
        CollectionStore s = store(collection);
        return new ShardStats(s.docs().documents(), s.docs().fingerprints(), s.buckets().entries(),
                s.buckets().offHeapBytes(), s.docs().offHeapBytes());
    }

    @Override
    public void close() {
        stores.values().forEach(CollectionStore::close);
        stores.clear();
    }

    /** Previous bindings: {@code present[i]} says whether {@code previous[i]} means anything. */
    public record Previous(boolean[] present, long[] previous) {
        Previous(int n) {
            this(new boolean[n], new long[n]);
        }

        void set(int i, OptionalLong value) {
            present[i] = value.isPresent();
            previous[i] = value.orElse(0);
        }
    }

    /** Sizes of one collection on one shard. */
    public record ShardStats(long documents, long fingerprints, long bucketEntries, long tableBytes, long docBytes) {
    }
}
