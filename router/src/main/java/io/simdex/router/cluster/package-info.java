/**
 * The cluster's control plane, apart from the data path: Atomix membership, the partition map
 * kept by Raft, rebalancing (partition moves), missed-write marks, the shared collection
 * catalog, and the admin service.
 *
 * <p>Invariants. The partition map changes only through Atomix, each change with a new epoch;
 * a router builds its index view from one map and tags every shard call with that map's epoch,
 * and nodes refuse calls routed by an older one, so a router that missed a move cannot write
 * around it. A node marked as having missed a write refuses reads until it has pulled its
 * partitions again, and a write one of its replicas missed is acknowledged only once that
 * mark is committed ({@link io.simdex.router.cluster.MissedWrites}). Otherwise the data path
 * reads the current view and never waits on Atomix.
 *
 * <p>A move ({@link io.simdex.router.cluster.Rebalancer}) is planned by
 * {@link io.simdex.router.cluster.MovePlan}, runs in rounds
 * ({@link io.simdex.router.cluster.MoveRound}), and reaches the map and the nodes only through
 * {@link io.simdex.router.cluster.MoveCalls}. A node receives partitions only once it has
 * dropped what it kept of partitions it does not serve, and a move that fails leaves no node
 * incoming.
 */
package io.simdex.router.cluster;
