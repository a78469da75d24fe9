package io.simdex.router;

import io.simdex.core.BlockTables;
import io.simdex.core.Hashing;

/**
 * Which shard owns what. Every key (a (table, block) bucket, an id, a fingerprint) hashes to one
 * of {@value #PARTITIONS} virtual partitions; partitions map to shards. Fixing the partition
 * count lets shards be added later by moving whole partitions, never rehashing keys.
 *
 * <p>Bucket keys are hashed, not used directly, so that a table's 65536 buckets spread over the
 * shards instead of each table landing on one shard; ids and fingerprints use different seeds
 * so a document's id and fingerprint records are placed independently.
 */
public final class Placement {
    public static final int PARTITIONS = 4096;
    private static final long BUCKET_SEED = 0x5bd1e9955bd1e995L;
    private static final long FP_SEED = 0x27d4eb2f165667c5L;

    private final int[] shardOfPartition;

    private Placement(int[] shardOfPartition) {
        this.shardOfPartition = shardOfPartition;
    }

    /** Partitions dealt round-robin over {@code shards} shards. */
    public static Placement roundRobin(int shards) {
        if (shards < 1 || shards > PARTITIONS) {
            throw new IllegalArgumentException("shards must be 1.." + PARTITIONS + ", was " + shards);
        }
        int[] map = new int[PARTITIONS];
        for (int p = 0; p < PARTITIONS; p++) {
            map[p] = p % shards;
        }
        return new Placement(map);
    }

    public int shards() {
        int max = 0;
        for (int s : shardOfPartition) {
            max = Math.max(max, s);
        }
        return max + 1;
    }

    public int ownerOfBucket(int table, int block) {
        return shardOfPartition[partition(Hashing.mix64(BlockTables.bucketKey(table, block) ^ BUCKET_SEED))];
    }

    public int ownerOfFingerprint(long fp) {
        return shardOfPartition[partition(Hashing.mix64(fp ^ FP_SEED))];
    }

    public int ownerOfId(String id) {
        return shardOfPartition[partition(Hashing.hash(id))];
    }

    /** How many of the 4 x 65536 buckets {@code shard} owns. */
    public int bucketsOwnedBy(int shard) {
        int n = 0;
        for (int t = 0; t < BlockTables.TABLES; t++) {
            for (int b = 0; b < BlockTables.KEYS_PER_TABLE; b++) {
                n += ownerOfBucket(t, b) == shard ? 1 : 0;
            }
        }
        return n;
    }

    private static int partition(long hash) {
        return Hashing.reduce(hash, PARTITIONS);
    }
}
