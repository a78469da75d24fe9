package io.simdex.router.shard;

/**
 * Stored fingerprints a shard found for one probe (or content hash), with the generation each
 * was found in: {@code generations[i]} belongs to {@code fingerprints[i]}.
 */
public record Found(long[] fingerprints, long[] generations) {
    public static final Found NONE = new Found(new long[0], new long[0]);
}
