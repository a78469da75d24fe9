package io.simdex.server;

import io.simdex.server.store.CollectionStore;

/**
 * What one collection holds and occupies on one shard, summed over its generations: the
 * figures the store gauges publish. Bytes are the memory-mapped size of each part's Chronicle
 * Map files (sparse files: allocated on disk as pages are touched).
 *
 * @param generations time generations on disk (1 for a collection without retention; the next may be
 *                    prepared ahead of its first write)
 * @param pages       bucket pages, base and overflow (see BucketPages), of tables kept in pages; 0 for packed tables
 * @param unpacked    residues packed tables gained since they were last packed (their delta, see PackedBuckets);
 *                    0 for tables kept in pages
 * @param tableBytes  the bucket pages' maps
 * @param docBytes    the id and fingerprint maps (DocMaps)
 * @param contentBytes the content-hash index, 0 until the collection records content hashes
 * @param textBytes   the short texts kept for verification, 0 until the first
 */
public record CollectionSizes(long documents, long fingerprints, long generations, long pages, long unpacked, long tableBytes, long docBytes,
        long contentBytes, long textBytes) {
    public static final CollectionSizes EMPTY = new CollectionSizes(0, 0, 0, 0, 0, 0, 0, 0, 0);

    /** One generation's store. */
    static CollectionSizes of(CollectionStore s) {
        return new CollectionSizes(s.docs().documents(), s.docs().fingerprints(), 1, s.buckets().pages(), s.buckets().unpacked(),
                s.buckets().offHeapBytes(), s.docs().offHeapBytes(), s.contents().offHeapBytes(), s.texts().offHeapBytes());
    }

    /** Two generations of the collection on one shard: every figure summed. */
    CollectionSizes plus(CollectionSizes o) {
        return sum(o, generations + o.generations);
    }

    /**
     * The collection's shares on two shards of one process: summed, but for the generations,
     * which every shard keeps alike (the larger count, should one shard have prepared the next).
     */
    public CollectionSizes alongside(CollectionSizes o) {
        return sum(o, Math.max(generations, o.generations));
    }

    private CollectionSizes sum(CollectionSizes o, long generations) {
        return new CollectionSizes(documents + o.documents, fingerprints + o.fingerprints, generations, pages + o.pages, unpacked + o.unpacked,
                tableBytes + o.tableBytes, docBytes + o.docBytes, contentBytes + o.contentBytes, textBytes + o.textBytes);
    }
}
