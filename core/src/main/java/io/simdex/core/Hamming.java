package io.simdex.core;

/** Hamming distance between fingerprints: one XOR and one POPCNT instruction. */
public final class Hamming {
    private Hamming() {
    }

    /** Number of differing bits, 0..64. */
    public static int distance(long a, long b) {
        return Long.bitCount(a ^ b);
    }
}
