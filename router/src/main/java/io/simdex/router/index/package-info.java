/**
 * The index across shards: what Insert, Query, Dedup and Delete do in terms of the shard
 * protocol, with batching, text verification (short texts, sketches) and Dedup's coordination.
 *
 * <p>Invariants. A document lives in three places (id to fingerprint at the id's owner,
 * fingerprint to ids at the fingerprint's owner, the fingerprint in its four buckets), written
 * in an order that leaves nothing wrong to see when a write is cut short, and every step is
 * idempotent (see {@link io.simdex.router.index.IndexRouter}). A query's answer is exactly the
 * brute-force answer: the pigeonhole argument of Manku, Jain and Das Sarma (WWW 2007) says a
 * stored fingerprint within distance 3 shares one of the probe's four 16-bit blocks, and every
 * such bucket is probed. Dedup holds the bucket locks of its documents from before its probe
 * until after its insert, so two near-duplicates are never both kept.
 */
package io.simdex.router.index;
