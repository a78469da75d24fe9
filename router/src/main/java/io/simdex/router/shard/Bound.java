package io.simdex.router.shard;

/** What ids are bound to, parallel to them: {@code fingerprints[i]} where {@code found[i]}, else 0. */
public record Bound(boolean[] found, long[] fingerprints) {
}
