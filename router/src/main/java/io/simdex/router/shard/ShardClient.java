package io.simdex.router.shard;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The shard protocol as the router sees it: asynchronous, so probes to several shards run in
 * parallel. Its answers are this package's value types ({@link Found}, {@link Previous},
 * {@link ShardStats}), so a router over remote shards needs nothing of the shard's store. {@link LocalShardClient} answers in the caller's thread (one JVM, no copies, no
 * hops); {@link RemoteShardClient} sends the same calls over gRPC. Generations are a
 * collection's time generations (0 for collections without retention).
 */
public interface ShardClient extends AutoCloseable {
    CompletableFuture<Found[]> probe(String collection, long[] generations, int table, long[] fps, int maxDistance);

    /** Adds fps to their buckets; {@code newFingerprints}: they had no ids in this generation, skip the presence scan. */
    CompletableFuture<Integer> bucketAdd(String collection, long generation, int table, long[] fps, boolean newFingerprints);

    /**
     * Several tables' probes in one call: part i probes {@code tables[i]} for {@code fps[i]}
     * within {@code maxDistances[i]}; the answer holds each part's answer, in order. A remote
     * shard makes it one round trip; by default it is the parts' single probes.
     */
    default CompletableFuture<Found[][]> probeMany(String collection, long[] generations, int[] tables, long[][] fps, int[] maxDistances) {
        List<CompletableFuture<Found[]>> parts = new ArrayList<>(tables.length);
        for (int i = 0; i < tables.length; i++) {
            parts.add(probe(collection, generations, tables[i], fps[i], maxDistances[i]));
        }
        return CompletableFuture.allOf(parts.toArray(new CompletableFuture<?>[0]))
                .thenApply(done -> parts.stream().map(CompletableFuture::join).toArray(Found[][]::new));
    }

    /**
     * {@link #probeMany}, and the ids (at most {@code limit}, 0: all) of the matches whose
     * fingerprints fall in a partition set in {@code resolvePartitions} (bit p % 8 of byte p / 8),
     * as {@link #resolveIds} gives them: a remote shard answers both in one round trip. A shard
     * may resolve fewer (by default none, as does a node of an older version); the caller
     * resolves the rest.
     */
    default CompletableFuture<Probed> probeResolving(String collection, long[] generations, int[] tables, long[][] fps, int[] maxDistances,
            byte[] resolvePartitions, int limit) {
        return probeResolving(collection, generations, tables, fps, maxDistances, resolvePartitions, limit, new long[tables.length], 0);
    }

    /**
     * As above, where part i's fingerprints differ from the probes they stand for in the bits
     * {@code flips[i]} (a neighbour bucket's), and only each probe's {@code nearest} nearest
     * matches (0: all) need their ids: a remote shard resolves no others.
     */
    default CompletableFuture<Probed> probeResolving(String collection, long[] generations, int[] tables, long[][] fps, int[] maxDistances,
            byte[] resolvePartitions, int limit, long[] flips, int nearest) {
        return probeMany(collection, generations, tables, fps, maxDistances).thenApply(Probed::unresolved);
    }

    /**
     * Several tables' bucket additions in one call: part i adds {@code fps[i]} to table
     * {@code tables[i]}, {@code newFingerprints[i]} as in {@link #bucketAdd}; the sum of their
     * counts. A remote shard makes it one round trip; by default it is the parts' single adds.
     */
    default CompletableFuture<Integer> bucketAddMany(String collection, long generation, int[] tables, long[][] fps, boolean[] newFingerprints) {
        CompletableFuture<Integer> sum = CompletableFuture.completedFuture(0);
        for (int i = 0; i < tables.length; i++) {
            sum = sum.thenCombine(bucketAdd(collection, generation, tables[i], fps[i], newFingerprints[i]), Integer::sum);
        }
        return sum;
    }

    CompletableFuture<Integer> bucketRemove(String collection, long generation, int table, long[] fps);

    CompletableFuture<Previous> bindIds(String collection, long generation, String[] ids, long[] fps);

    CompletableFuture<Previous> unbindIds(String collection, String[] ids);

    CompletableFuture<boolean[]> attachIds(String collection, long generation, long[] fps, String[] ids);

    CompletableFuture<boolean[]> detachIds(String collection, long generation, long[] fps, String[] ids);

    /**
     * {@link #bindIds} and {@link #attachIds} of one request, each answered as its own call
     * would be. A remote shard makes them one round trip (sending the pairs once when
     * {@code attachIds} and {@code attachFps} are the bind arrays themselves); by default they are
     * the two calls, each failing on its own.
     */
    default IdWrites writeIds(String collection, long generation, String[] bindIds, long[] bindFps, String[] attachIds, long[] attachFps) {
        return new IdWrites(bindIds(collection, generation, bindIds, bindFps), attachIds(collection, generation, attachFps, attachIds));
    }

    /** Up to {@code limit} ids (0: all) of fps[i] in generations[i], with how many it has there. */
    CompletableFuture<Ids[]> resolveIds(String collection, long[] generations, long[] fps, int limit);

    CompletableFuture<ShardStats> stats(String collection, long minGeneration);

    CompletableFuture<Integer> expireBefore(String collection, long minGeneration);

    /**
     * Creates the collection's store for {@code generation} ahead of its first write; 1 if
     * created, 0 if it existed or if the collection has no store on the node yet and
     * {@code evenIfUnused} is false.
     */
    CompletableFuture<Integer> prepareGeneration(String collection, long generation, boolean evenIfUnused);

    CompletableFuture<Integer> putTexts(String collection, long generation, String[] ids, String[] texts);

    /** Removes what is kept of the ids in {@code generation}; how many were kept. */
    CompletableFuture<Integer> dropTexts(String collection, long generation, String[] ids);

    /** Stored short texts of the ids (null where none). */
    CompletableFuture<String[]> getTexts(String collection, long[] generations, String[] ids);

    /** The fingerprint each id is bound to in the newest of the generations that binds it. */
    CompletableFuture<Bound> lookupIds(String collection, long[] generations, String[] ids);

    /**
     * A page of at most {@code limit} bindings (more only when one segment holds more) of
     * {@code generations} (ascending) whose ids fall in {@code partitions} (bit p % 8 of byte
     * p / 8), from the position {@code generation}, {@code mapGeneration}, {@code segment} (all
     * 0: the beginning), which only the node that gave it knows: a replicated shard answers
     * this from its replica on {@link #readNode} and {@link #onNode}, never by failing over.
     */
    CompletableFuture<ExportIdsPage> exportIds(String collection, long[] generations, byte[] partitions, long generation, int mapGeneration,
            int segment, int limit);

    /** The node a reader that must stay on one replica begins with; -1 for a shard that is not replicated. */
    default int readNode() {
        return -1;
    }

    /** This shard's replica on {@code node} as {@link #readNode} named it, or null when that node no longer serves it. */
    default ShardClient onNode(int node) {
        return node == -1 ? this : null;
    }

    /** Content index: fingerprints recorded for the hashes, with their generation (-1: none). */
    CompletableFuture<Found> lookupContent(String collection, long[] generations, byte[][] hashes);

    CompletableFuture<Integer> recordContent(String collection, long generation, byte[][] hashes, long[] fps);

    CompletableFuture<boolean[]> checkUrls(String job, byte[][] hashes, long nowSeconds, long expiresAtSeconds, boolean checkOnly);

    CompletableFuture<Long> sweepUrls(long nowSeconds);

    CompletableFuture<Boolean> dropUrlJob(String job);

    /** Locks bucket keys for {@code token}: the largest stamp on them, and their pending intents. Fails with ABORTED when they stay busy. */
    CompletableFuture<Granted> lockBuckets(String collection, int[] bucketKeys, long token, int leaseMillis, int waitMillis);

    /** Releases the token's keys, recording {@code stamp}; {@code keepPending}: their intents stay for the next holder. */
    CompletableFuture<Integer> unlockBuckets(String collection, int[] bucketKeys, long token, long stamp, boolean keepPending);

    /** {@link #unlockBuckets(String, int[], long, long, boolean)} with everything intended done. */
    default CompletableFuture<Integer> unlockBuckets(String collection, int[] bucketKeys, long token, long stamp) {
        return unlockBuckets(collection, bucketKeys, token, stamp, false);
    }

    /** Leaves {@code docs} on the keys while the token holds them all: how many it holds (fewer: nothing was left). */
    CompletableFuture<Integer> recordIntent(String collection, int[] bucketKeys, long token, long stamp, byte[] docs);

    /** Drops the tokens' pending intents from every key of the node: their documents are stored. */
    CompletableFuture<Integer> settleIntents(String collection, long[] tokens);

    @Override
    void close();
}
