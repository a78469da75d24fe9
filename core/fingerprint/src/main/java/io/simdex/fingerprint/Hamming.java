package io.simdex.fingerprint;

/**
 * Hamming distance between fingerprints: one XOR and one POPCNT instruction. Total over all
 * 64-bit values: every pair of longs has a distance, signed or not.
 */
public final class Hamming {
    private Hamming() {
    }

    /**
     * Number of differing bits, 0..64: 0 exactly when {@code a == b}, 64 exactly when
     * {@code b == ~a}. Symmetric; the sign bit counts like any other.
     */
    public static int distance(long a, long b) {
        return Long.bitCount(a ^ b);
    }
}
