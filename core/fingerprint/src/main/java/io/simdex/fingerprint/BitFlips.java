package io.simdex.fingerprint;

import java.util.random.RandomGenerator;

/** Planting neighbours: a fingerprint at an exact Hamming distance from another. */
public final class BitFlips {
    private BitFlips() {
    }

    /**
     * {@code fp} with exactly {@code k} distinct random bits flipped, so that
     * {@code Hamming.distance(fp, flip(fp, k, r)) == k}: {@code k = 0} returns {@code fp},
     * {@code k = 64} returns {@code ~fp}. Draws bit positions from {@code random} until {@code k}
     * distinct ones are set, so a seeded generator gives a repeatable result.
     *
     * @throws IllegalArgumentException if k is outside 0..64
     */
    public static long flip(long fp, int k, RandomGenerator random) {
        if (k < 0 || k > Long.SIZE) {
            throw new IllegalArgumentException("k must be 0..64, was " + k);
        }
        long mask = 0;
        while (Long.bitCount(mask) < k) {
            mask |= 1L << random.nextInt(Long.SIZE);
        }
        return fp ^ mask;
    }
}
