/**
 * The shard protocol as the router uses it: its value types, local and remote clients,
 * replica sets, the fan-out, placement and epochs.
 *
 * <p>Invariants. {@link io.simdex.router.shard.ShardClient} is the only way the index reaches
 * a shard, and its answers are this package's value types, so a router over remote shards uses
 * nothing of the shard's store. Every key (bucket, id, fingerprint, content or URL hash) falls
 * in one of 4,096 partitions, and {@link io.simdex.router.shard.Placement} maps partitions to
 * groups (a shard, or a {@link io.simdex.router.shard.ReplicaSet}). {@link
 * io.simdex.router.shard.Fanout} is the one place that turns n items into one call per owner,
 * in parallel; a {@link io.simdex.router.shard.WriteBatch} open around a write phase then
 * merges the replica sets' calls to one node into one call per node; a bulk load's bucket
 * windows go as messages on one stream per node ({@link io.simdex.router.shard.BucketStreams}).
 * Every call, and every window, carries the epoch of the partition map it was routed by.
 */
package io.simdex.router.shard;
