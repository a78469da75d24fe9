package io.simdex.loadtest.quality;

/**
 * MinHash LSH as the reference implementations do it (datasketch's {@code MinHashLSH}, the
 * text-dedup project): {@value #PERMUTATIONS} MinHash values of 32 bits over a text's set of
 * character n-grams (one independent hash per value, no one-permutation trick), cut into
 * {@code bands} bands of {@code rows} values; two texts are candidates, and here duplicates,
 * when some band is equal. The collision probability at Jaccard s is {@code 1 - (1 - s^r)^b},
 * steepest near {@code (1/b)^(1/r)}. A signature costs {@value #PERMUTATIONS} x 4 bytes, plus
 * one hash table entry per band.
 */
final class MinHashLsh {
    static final int PERMUTATIONS = 128;

    private MinHashLsh() {
    }

    /** The signature of a set of distinct 64-bit n-gram hashes ({@link ShingleSets}). */
    static int[] signature(long[] shingles) {
        int[] sig = new int[PERMUTATIONS];
        java.util.Arrays.fill(sig, -1);
        for (int p = 0; p < PERMUTATIONS; p++) {
            long seed = 0x9E3779B97F4A7C15L * (p + 1);
            int min = Integer.MAX_VALUE;
            for (long s : shingles) {
                int v = (int) (mix(s ^ seed) >>> 33);
                if (v < min) {
                    min = v;
                }
            }
            sig[p] = min;
        }
        return sig;
    }

    /** Whether some band of {@code rows} values (of the first {@code bands * rows}) is equal. */
    static boolean candidates(int[] a, int[] b, int bands, int rows) {
        for (int band = 0; band < bands; band++) {
            boolean equal = true;
            for (int r = band * rows; r < (band + 1) * rows && equal; r++) {
                equal = a[r] == b[r];
            }
            if (equal) {
                return true;
            }
        }
        return false;
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
