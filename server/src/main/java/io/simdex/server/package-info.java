/**
 * A shard node: the fingerprints, ids and URL sets of the (table, block) buckets and hash
 * ranges it owns, and the gRPC services that serve them.
 *
 * <p>{@link io.simdex.server.ShardNode} is the shard itself, called directly by a router in the
 * same JVM. Across processes, one port serves two services of {@code shard.proto}:
 * {@link io.simdex.server.ShardService}, the data plane (probe, bucket adds and removes, ids,
 * content, texts, URLs, bucket locks, stats), and {@link io.simdex.server.ShardControlService},
 * the control plane (partition export, pull and drop; the placement epoch; node status). Both
 * validate a request before anything changes (INVALID_ARGUMENT naming the bad value) and share
 * {@link io.simdex.server.Calls} for turning an exception into a status.
 *
 * <p>Invariants:
 * <ul>
 *   <li>Every write is idempotent, so routers retry on UNAVAILABLE and a pull may run again.</li>
 *   <li>On a cluster node both services sit behind one {@link io.simdex.server.EpochFence}: a
 *       call stamped with an older placement epoch than the node's fails with
 *       FAILED_PRECONDITION before it reaches either service, and SetEpoch returns only when no
 *       call admitted under an older epoch is still running.</li>
 *   <li>While {@link io.simdex.server.NodeState} says the node is catching up, reads fail with
 *       UNAVAILABLE and writes apply.</li>
 *   <li>While a pull runs, a local delete of a pulled partition leaves a tombstone, so the copy
 *       never resurrects what was deleted here ({@link io.simdex.server.ActivePulls}).</li>
 *   <li>A mirroring pull ({@link io.simdex.server.PartitionMirror}) removes only records the
 *       source lacked twice, 2 s apart, that did not change here since the pull began.</li>
 *   <li>Check-and-insert is serial per bucket key across routers
 *       ({@link io.simdex.server.BucketLocks}).</li>
 *   <li>One process per shard directory: a node holds an OS lock on it from before its log
 *       replay until it closes ({@link io.simdex.server.DataDirLock}).</li>
 * </ul>
 * The storage itself (Chronicle Map files, pages, generations) is {@link io.simdex.server.store}.
 */
package io.simdex.server;
