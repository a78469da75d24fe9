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

    /** Nibbles of a block: beyond distance 3 a block is also locked as each of them masked out. */
    private static final int NIBBLES = BlockTables.BLOCK_BITS / 4;
    private static final int NIBBLE_BITS = 4;

    /**
     * The distinct bucket keys a check-and-insert of {@code fps} within {@code reach} must lock,
     * ascending: each block's key, and beyond distance 3 also one key per nibble of the block,
     * {@link #masked} (5 keys a table, 20 a document, where the block and its 16 one-bit
     * neighbours took 68).
     *
     * <p>Why that excludes every pair it must: two documents within 3 have an equal block in
     * some table, so an equal key. Two within 7 have, in some table, blocks that are equal or
     * differ in one bit (four blocks differing in two bits or more differ in 8 at least); one
     * bit lies in one nibble j, and the blocks masked at j are equal. A masked key is a bucket
     * key too (a lock is a lock of its number, owned by that bucket's shard): sharing it with an
     * unrelated block only makes a call wait for another it did not need to, never miss one.
     */
    static int[] bucketKeys(long[] fps, int reach) {
        int per = reach > BlockTables.MAX_DISTANCE ? 1 + NIBBLES : 1;
        int[] keys = new int[fps.length * BlockTables.TABLES * per];
        int n = 0;
        for (long fp : fps) {
            for (int t = 0; t < BlockTables.TABLES; t++) {
                int block = BlockTables.block(fp, t);
                keys[n++] = BlockTables.bucketKey(t, block);
                for (int j = 0; per > 1 && j < NIBBLES; j++) {
                    keys[n++] = BlockTables.bucketKey(t, masked(block, j));
                }
            }
        }
        Arrays.sort(keys);
        int distinct = 0;
        for (int i = 0; i < keys.length; i++) {
            if (i == 0 || keys[i] != keys[i - 1]) {
                keys[distinct++] = keys[i];
            }
        }
        return Arrays.copyOf(keys, distinct);
    }

    /**
     * {@code block} without its nibble j (bits 4j..4j+3), the 12 bits left closed up, under j in
     * the top 4 bits: equal for two blocks exactly when they differ in nibble j at most.
     */
    static int masked(int block, int j) {
        int shift = j * NIBBLE_BITS;
        int rest = block >>> (shift + NIBBLE_BITS) << shift | block & ((1 << shift) - 1);
        return j << (BlockTables.BLOCK_BITS - NIBBLE_BITS) | rest;
    }
}
