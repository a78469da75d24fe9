package io.simdex.core;

/**
 * Placement hashes: which shard owns a bucket, an id or a fingerprint. Stable across versions
 * and processes (persisted data depends on them), so never String.hashCode's seedless mix alone.
 */
public final class Hashing {
    private Hashing() {
    }

    /** A 64-bit finaliser (Stafford's Mix13 as used by SplitMix64): every input bit moves every output bit. */
    public static long mix64(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }

    /** Maps a hash to 0..n-1 without modulo bias worth caring about (Lemire's multiply-shift). */
    public static int reduce(long hash, int n) {
        return (int) Math.multiplyHigh(hash >>> 1, (long) n << 1);
    }

    /** A stable 64-bit hash of a string's UTF-16 chars (FNV-1a then mixed). */
    public static long hash(CharSequence s) {
        long h = 0xcbf29ce484222325L;
        for (int i = 0; i < s.length(); i++) {
            h ^= s.charAt(i);
            h *= 0x100000001b3L;
        }
        return mix64(h);
    }
}
