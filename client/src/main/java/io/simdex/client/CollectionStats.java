package io.simdex.client;

/**
 * Counts and sizes of a collection, summed over its shards.
 *
 * @param collection    the collection's name
 * @param documents     stored document ids
 * @param fingerprints  distinct fingerprints (several ids may share one)
 * @param shards        shards the collection is spread over
 * @param tableBytes    off-heap bytes mapped for the bucket tables
 * @param docBytes      off-heap bytes mapped for the id maps
 * @param bucketEntries bucket entries (each fingerprint is in 4 tables)
 */
public record CollectionStats(
        String collection,
        long documents,
        long fingerprints,
        int shards,
        long tableBytes,
        long docBytes,
        long bucketEntries) {
}
