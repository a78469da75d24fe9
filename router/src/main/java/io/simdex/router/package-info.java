/**
 * The router: a gRPC front end that places every key on the shards that own it, probes them in
 * parallel and merges the answer. {@link io.simdex.router.EmbeddedSimdex} assembles the
 * embedded default (the router and its shards in one process).
 *
 * <p>Packages, each depending only on those after it: {@code api} (the public service),
 * {@code index} (what each call does across shards), {@code crawl} (URL seen-sets, content
 * index), {@code shard} (the shard protocol, clients, placement, fan-out), {@code transport}
 * (the server and its threads). {@code cluster} is the control plane (membership, partition map,
 * moves) and feeds {@code index} a view of the current map.
 */
package io.simdex.router;
