package io.simdex.router.index;

import io.grpc.Status;
import io.simdex.fingerprint.BlockTables;
import io.simdex.router.shard.Fanout;
import io.simdex.router.shard.Placement;
import io.simdex.router.shard.ShardClient;

import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;

import static io.simdex.router.shard.Fanout.pick;

/**
 * The bucket locks one Dedup call holds on the shards that own its buckets, from before its
 * probe until after its insert (the server's {@code BucketLocks} keeps them). Two documents
 * within the call's reach share a bucket key, so two calls that could keep near-duplicates of
 * each other exclude each other. Shards are locked one at a time in ascending order, so calls
 * cannot deadlock; locks carry a lease, so a router that dies blocks nobody for long.
 *
 * <p>Every decision is numbered: {@link #stamp} is the largest number on the locked keys, and
 * the call's decisions take the next ones, which it leaves on the keys when it releases them
 * ({@link #decided}). Replaying all decisions one at a time in that order gives the same ones.
 */
final class DedupLocks implements AutoCloseable {
    /** Shard-side bucket locks expire this long after being granted. */
    static final int LEASE_MILLIS = 30_000;
    /** How long a Dedup waits for busy buckets before failing with ABORTED. */
    static final int WAIT_MILLIS = 10_000;

    private final ShardClient[] shards;
    private final String collection;
    private final int[] keys;
    private final int[][] byShard;
    private final boolean[] locked;
    private final long token = ThreadLocalRandom.current().nextLong();
    private final long started = System.nanoTime();
    private long stamp;
    private long released = -1;

    private DedupLocks(ShardClient[] shards, Placement placement, String collection, int[] keys) {
        this.shards = shards;
        this.collection = collection;
        this.keys = keys;
        this.byShard = Fanout.group(keys.length, shards.length,
                i -> placement.ownerOfBucket(keys[i] >>> BlockTables.BLOCK_BITS, keys[i] & (BlockTables.KEYS_PER_TABLE - 1)));
        this.locked = new boolean[shards.length];
    }

    /** Locks every bucket key of {@code fps} within {@code reach}; fails with ABORTED when they stay busy (holding none then). */
    static DedupLocks acquire(ShardClient[] shards, Placement placement, String collection, long[] fps, int reach) {
        DedupLocks locks = new DedupLocks(shards, placement, collection, bucketKeys(fps, reach));
        try {
            for (int s = 0; s < shards.length; s++) {
                if (locks.byShard[s].length > 0) {
                    // Marked before the call: a replica set may hold some replicas' locks when it fails.
                    locks.locked[s] = true;
                    long granted = Fanout.join(shards[s].lockBuckets(collection, pick(locks.keys, locks.byShard[s]), locks.token,
                            LEASE_MILLIS, WAIT_MILLIS));
                    locks.stamp = Math.max(locks.stamp, granted);
                }
            }
            return locks;
        } catch (RuntimeException e) {
            locks.close();
            throw e;
        }
    }

    /** The largest decision number on the locked keys. */
    long stamp() {
        return stamp;
    }

    /** Fails with ABORTED once half the lease is gone: the locks may be about to expire, and inserting then could race another router. */
    void checkLease() {
        if (System.nanoTime() - started > LEASE_MILLIS / 2 * 1_000_000L) {
            throw Status.ABORTED.withDescription("dedup took longer than half the lock lease; retry").asRuntimeException();
        }
    }

    /** The call's {@code n} decisions are made and stored: their numbers stay on the keys. */
    void decided(int n) {
        released = stamp + n;
    }

    /** Releases every lock taken; a shard that does not answer lets its lease free the keys. */
    @Override
    public void close() {
        long leave = released >= 0 ? released : stamp;
        Fanout f = Fanout.start();
        for (int s = 0; s < shards.length; s++) {
            if (locked[s]) {
                f.add(shards[s].unlockBuckets(collection, pick(keys, byShard[s]), token, leave));
            }
        }
        try {
            f.await();
        } catch (RuntimeException e) {
            // The shard's lease frees the keys; the caller's outcome stands.
        }
    }

    /**
     * The distinct bucket keys a check-and-insert of {@code fps} within {@code reach} must lock,
     * ascending: each block's key, and beyond distance 3 its 16 one-bit neighbours too (two
     * documents within 7 have, in some table, equal or one-bit-apart keys, and each locks the
     * other's).
     */
    static int[] bucketKeys(long[] fps, int reach) {
        int per = reach > BlockTables.MAX_DISTANCE ? 1 + BlockTables.BLOCK_BITS : 1;
        int[] keys = new int[fps.length * BlockTables.TABLES * per];
        int n = 0;
        for (long fp : fps) {
            for (int t = 0; t < BlockTables.TABLES; t++) {
                int block = BlockTables.block(fp, t);
                keys[n++] = BlockTables.bucketKey(t, block);
                for (int bit = 0; per > 1 && bit < BlockTables.BLOCK_BITS; bit++) {
                    keys[n++] = BlockTables.bucketKey(t, block ^ (1 << bit));
                }
            }
        }
        return Arrays.stream(keys).sorted().distinct().toArray();
    }
}
