package io.simdex.core;

import io.simdex.fingerprint.BlockTables;

/**
 * The virtual partition of every key a shard stores. A router places partitions on nodes; a node
 * uses the same functions to find what to stream, keep or drop when a partition moves. The
 * partition count is fixed for the life of a cluster: nodes are added by moving whole
 * partitions, never by rehashing keys.
 *
 * <p>Bucket keys are hashed, not used directly, so a table's 65536 buckets spread over the
 * nodes instead of one table landing on one node; ids and fingerprints use different seeds so
 * a document's id and fingerprint records are placed independently.
 */
public final class Partitions {
    public static final int COUNT = 4096;
    private static final long BUCKET_SEED = 0x5bd1e9955bd1e995L;
    private static final long FP_SEED = 0x27d4eb2f165667c5L;

    private Partitions() {
    }

    /** The partition of bucket {@code (table, block)}. */
    public static int ofBucket(int table, int block) {
        return ofBucketKey(BlockTables.bucketKey(table, block));
    }

    /** The partition of a {@link BlockTables#bucketKey} value. */
    public static int ofBucketKey(int bucketKey) {
        return of(Hashing.mix64(bucketKey ^ BUCKET_SEED));
    }

    /** The partition of a fingerprint's fp -> ids record. */
    public static int ofFingerprint(long fp) {
        return of(Hashing.mix64(fp ^ FP_SEED));
    }

    /** The partition of an id's id -> fingerprint record (and its short text). */
    public static int ofId(String id) {
        return of(Hashing.hash(id));
    }

    /** The partition of a 16-byte content hash: its first 8 bytes, big-endian, as a fingerprint. */
    public static int ofContentHash(byte[] hash) {
        long h = 0;
        for (int i = 0; i < 8; i++) {
            h = (h << 8) | (hash[i] & 0xFF);
        }
        return ofFingerprint(h);
    }

    /** The partition of a 16-byte URL hash: its first 8 bytes, little-endian, mixed, as a fingerprint. */
    public static int ofUrlHash(byte[] hash) {
        long h = 0;
        for (int i = 7; i >= 0; i--) {
            h = (h << 8) | (hash[i] & 0xFF);
        }
        return ofFingerprint(Hashing.mix64(h));
    }

    private static int of(long hash) {
        return Hashing.reduce(hash, COUNT);
    }
}
