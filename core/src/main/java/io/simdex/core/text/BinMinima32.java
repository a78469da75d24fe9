package io.simdex.core.text;

/**
 * Bins' minima over a buffer of 32-bit shingle hashes, for {@link BitMinHash} with
 * {@link BitMinHash.BinOrder#PRODUCTS_32}: bin k orders a hash h by the 32-bit product
 * {@code (h ^ seeds[k]) * multipliers[k]}, compared signed. {@link #chosen} is
 * {@link VectorBinMinima32} or the scalar form ({@link VectorForms}); both give the same minima.
 *
 * <p>Why a 32-bit form: CPUs without 512-bit vectors have no vector multiply of 64-bit lanes,
 * and {@link BinMinima}'s 64 products a shingle then run one at a time: a 60-word English
 * text's whole fingerprint took 15.8 us on an AMD EPYC with AVX2, 11% of its Dedup's CPU
 * samples. 32-bit lanes multiply eight at a time with 256-bit vectors (AVX2) and sixteen with
 * 512-bit ones: the same text took 3.5 us (ShortFingerprintBenchmark).
 */
abstract class BinMinima32 {
    /** The form this JVM runs. */
    static BinMinima32 chosen() {
        return Chosen.INSTANCE;
    }

    /**
     * Lowers {@code min[minOffset + k]} to bin k's minimum over {@code hashes[from..to)}, for k in
     * {@code [firstBin, firstBin + bins)}; {@code bins} is a multiple of 16.
     */
    abstract void fold(int[] hashes, int from, int to, int[] seeds, int[] multipliers, int firstBin, int bins, int[] min, int minOffset);

    /** Which form this is, for tests and benchmarks. */
    abstract String name();

    /** Holds the choice apart, so that loading a subclass does not make it (which loads the subclass). */
    private static final class Chosen {
        static final BinMinima32 INSTANCE = VectorForms.choose(BinMinima32.class, "VectorBinMinima32", new Scalar());
    }

    /**
     * Four bins at a time over the buffer: each bin's minimum is a chain of dependent compares,
     * so four chains keep the multiplier busy where one bin at a time waits on its compare.
     */
    static final class Scalar extends BinMinima32 {
        @Override
        void fold(int[] hashes, int from, int to, int[] seeds, int[] multipliers, int firstBin, int bins, int[] min, int minOffset) {
            for (int k = firstBin; k < firstBin + bins; k += 4) {
                int s0 = seeds[k];
                int s1 = seeds[k + 1];
                int s2 = seeds[k + 2];
                int s3 = seeds[k + 3];
                int m0 = multipliers[k];
                int m1 = multipliers[k + 1];
                int m2 = multipliers[k + 2];
                int m3 = multipliers[k + 3];
                int min0 = min[minOffset + k];
                int min1 = min[minOffset + k + 1];
                int min2 = min[minOffset + k + 2];
                int min3 = min[minOffset + k + 3];
                for (int i = from; i < to; i++) {
                    int h = hashes[i];
                    min0 = Math.min(min0, (h ^ s0) * m0);
                    min1 = Math.min(min1, (h ^ s1) * m1);
                    min2 = Math.min(min2, (h ^ s2) * m2);
                    min3 = Math.min(min3, (h ^ s3) * m3);
                }
                min[minOffset + k] = min0;
                min[minOffset + k + 1] = min1;
                min[minOffset + k + 2] = min2;
                min[minOffset + k + 3] = min3;
            }
        }

        @Override
        String name() {
            return "scalar";
        }
    }
}
