package io.simdex.router;

import io.simdex.server.ShardNode;

import java.util.concurrent.CompletableFuture;

/**
 * The shard protocol as the router sees it: asynchronous, so probes to several shards run in
 * parallel. {@link LocalShardClient} answers in the caller's thread (one JVM, no copies, no
 * hops); {@link RemoteShardClient} sends the same calls over gRPC.
 */
public interface ShardClient extends AutoCloseable {
    CompletableFuture<long[][]> probe(String collection, int table, long[] fps, int maxDistance);

    CompletableFuture<Integer> bucketAdd(String collection, int table, long[] fps);

    CompletableFuture<Integer> bucketRemove(String collection, int table, long[] fps);

    CompletableFuture<ShardNode.Previous> bindIds(String collection, String[] ids, long[] fps);

    CompletableFuture<ShardNode.Previous> unbindIds(String collection, String[] ids);

    CompletableFuture<boolean[]> attachIds(String collection, long[] fps, String[] ids);

    CompletableFuture<boolean[]> detachIds(String collection, long[] fps, String[] ids);

    CompletableFuture<String[][]> resolveIds(String collection, long[] fps);

    CompletableFuture<ShardNode.ShardStats> stats(String collection);

    /** Locks bucket keys for {@code token}; the largest stamp on them. Fails with ABORTED when they stay busy. */
    CompletableFuture<Long> lockBuckets(String collection, int[] bucketKeys, long token, int leaseMillis, int waitMillis);

    CompletableFuture<Integer> unlockBuckets(String collection, int[] bucketKeys, long token, long stamp);

    @Override
    void close();
}
