package io.simdex.router.shard;

/** Sizes of one collection on one shard; bytes are on disk and mapped alike. */
public record ShardStats(long documents, long fingerprints, long bucketEntries, long tableBytes, long docBytes) {
}
