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

    /**
     * {@code fp} with exactly {@code k} distinct random bits of block {@code table} flipped
     * ({@link BlockTables#block}): a neighbour whose Hamming distance lies where the test wants it
     * among the four blocks, e.g. one that differs in every block.
     *
     * @throws IllegalArgumentException if table is outside 0..3 or k outside 0..16
     */
    public static long flipInBlock(long fp, int table, int k, RandomGenerator random) {
        if (table < 0 || table >= BlockTables.TABLES || k < 0 || k > BlockTables.BLOCK_BITS) {
            throw new IllegalArgumentException("table must be 0..3 and k 0..16, were " + table + " and " + k);
        }
        long mask = 0;
        while (Long.bitCount(mask) < k) {
            mask |= 1L << (table * BlockTables.BLOCK_BITS + random.nextInt(BlockTables.BLOCK_BITS));
        }
        return fp ^ mask;
    }

    /**
     * {@code fp} with exactly {@code k} distinct random bits outside block {@code table} flipped:
     * a neighbour in the same bucket of that table, its residue {@code k} bits away.
     *
     * @throws IllegalArgumentException if table is outside 0..3 or k outside 0..48
     */
    public static long flipOutsideBlock(long fp, int table, int k, RandomGenerator random) {
        if (table < 0 || table >= BlockTables.TABLES || k < 0 || k > BlockTables.RESIDUE_BITS) {
            throw new IllegalArgumentException("table must be 0..3 and k 0..48, were " + table + " and " + k);
        }
        long block = ((1L << BlockTables.BLOCK_BITS) - 1) << (table * BlockTables.BLOCK_BITS);
        long mask = 0;
        while (Long.bitCount(mask) < k) {
            mask |= (1L << random.nextInt(Long.SIZE)) & ~block;
        }
        return fp ^ mask;
    }
}
