/**
 * The processes of a cluster: a shard node ({@link io.simdex.ops.cluster.ClusterNode}: its store,
 * the shard services on its port, its Atomix membership) and a stateless router
 * ({@link io.simdex.ops.cluster.ClusterRouter}: the public API over the current partition map).
 *
 * <p>Invariants. A node that starts, or that was marked as having missed a write, takes writes
 * but refuses reads until it has pulled its partitions from live peers, unless it restarted
 * with nothing missed ({@link io.simdex.ops.cluster.InSyncStamp}); a router serves only once it
 * has read the partition map, and follows every change of it.
 */
package io.simdex.ops.cluster;
