package io.simdex.server.store;

import io.simdex.fingerprint.BlockTables;

/**
 * How big one shard's part of a collection is expected to grow: sizes the Chronicle Maps when
 * the collection is created on the shard.
 *
 * @param expectedFingerprints fingerprints this shard's buckets will hold per table
 * @param expectedDocuments    ids (and distinct fingerprints) this shard will own
 * @param ownedBuckets         how many of the 4 x 65536 buckets this shard owns
 * @param averageIdBytes       typical id length in bytes
 */
public record StoreSizing(long expectedFingerprints, long expectedDocuments, int ownedBuckets, int averageIdBytes) {

    /** Sizing for one of {@code shards} shards of a collection expected to hold {@code total} documents. */
    public static StoreSizing forShare(long total, int shards, int averageIdBytes) {
        int buckets = BlockTables.TABLES * BlockTables.KEYS_PER_TABLE;
        // 10% slack: placement by hash is not perfectly even.
        int owned = (int) Math.min(buckets, (long) Math.ceil(buckets * 1.1 / shards));
        long docs = (long) Math.ceil(total * 1.1 / shards);
        return new StoreSizing(total, docs, owned, averageIdBytes);
    }

    TableGeometry geometry() {
        return TableGeometry.forExpected(expectedFingerprints, ownedBuckets);
    }
}
