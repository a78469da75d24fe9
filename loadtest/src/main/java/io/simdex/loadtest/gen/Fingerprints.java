package io.simdex.loadtest.gen;

import io.simdex.core.Hashing;
import io.simdex.fingerprint.BitFlips;

import java.util.SplittableRandom;

/**
 * Deterministic test fingerprints. Stored fingerprint {@code i} of a seed is a pure function of
 * {@code (seed, i)}, so a loader and a later query run in another process agree on what is stored
 * without sharing a file; planted probes sit at an exact Hamming distance from a stored one.
 *
 * <p>{@link #stored} is the i-th output of SplitMix64 seeded with {@code seed}: uniform over all
 * 2^64 values, so two random fingerprints are about 32 bits apart and a random probe almost never
 * has a neighbour within 3 (the chance per stored fingerprint is 43,745 / 2^64).
 */
public final class Fingerprints {
    /** SplitMix64's increment: the odd integer nearest 2^64 / golden ratio. */
    private static final long GOLDEN_GAMMA = 0x9e3779b97f4a7c15L;
    /** Distances {@link #planted} cycles through: 0..3 must be found, 4 and 5 need not be. */
    public static final int MAX_PLANTED_DISTANCE = 5;

    private Fingerprints() {
    }

    /** Stored fingerprint number {@code i} (0-based) of the set made with {@code seed}. */
    public static long stored(long seed, long i) {
        return Hashing.mix64(seed + (i + 1) * GOLDEN_GAMMA);
    }

    /** The id the generator and the loader give stored fingerprint {@code i}. */
    public static String storedId(long i) {
        return "d" + i;
    }

    /**
     * As {@link #storedId(long)}, its number zero-padded so that the id takes {@code bytes} bytes
     * (ids of a fixed size, as in a store sized for them); 0, or a number too long for it, gives
     * {@link #storedId(long)}.
     */
    public static String storedId(long i, int bytes) {
        String number = Long.toString(i);
        if (number.length() + 1 >= bytes) {
            return "d" + number;
        }
        return "d" + "0".repeat(bytes - 1 - number.length()) + number;
    }

    /** A probe planted at exactly {@code distance} bits from a stored fingerprint. */
    public record Planted(long fingerprint, long sourceIndex, int distance) {
    }

    /**
     * Planted probe {@code n} against the first {@code storedCount} fingerprints of {@code seed}:
     * its source is a random stored fingerprint and its distance is {@code n % 6}, so any run of six
     * consecutive probes covers distances 0..5 once each.
     */
    public static Planted planted(long seed, long storedCount, long n, SplittableRandom random) {
        long source = random.nextLong(storedCount);
        int distance = (int) (n % (MAX_PLANTED_DISTANCE + 1));
        return new Planted(BitFlips.flip(stored(seed, source), distance, random), source, distance);
    }

    /** A fresh fingerprint unrelated to any stored one (a different SplitMix64 stream). */
    public static long fresh(SplittableRandom random) {
        return random.nextLong();
    }

    /** 16 lower-case hex digits, zero-padded: the JSONL form of a fingerprint. */
    public static String hex(long fp) {
        String s = Long.toHexString(fp);
        return "0".repeat(16 - s.length()) + s;
    }

    /** Inverse of {@link #hex}; also accepts fewer than 16 digits. */
    public static long parseHex(String hex) {
        if (hex.isEmpty() || hex.length() > 16) {
            throw new IllegalArgumentException("fingerprint must be 1..16 hex digits, was \"" + hex + "\"");
        }
        return Long.parseUnsignedLong(hex, 16);
    }
}
