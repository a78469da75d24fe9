package io.simdex.core.text;

/**
 * Bins' minima over a buffer of shingle hashes, for {@link BitMinHash}: bin k orders a hash h
 * by {@code (h ^ seeds[k]) * multipliers[k]}. {@link #chosen} is {@link VectorBinMinima} or the
 * scalar form ({@link VectorForms}); both give the same minima, and so the same fingerprints.
 */
abstract class BinMinima {
    /** The form this JVM runs. */
    static BinMinima chosen() {
        return Chosen.INSTANCE;
    }

    /**
     * Lowers {@code min[minOffset + k]} to bin k's minimum over {@code hashes[from..to)}, for k in
     * {@code [firstBin, firstBin + bins)}; {@code bins} is a multiple of 16.
     */
    abstract void fold(long[] hashes, int from, int to, long[] seeds, long[] multipliers, int firstBin, int bins, long[] min, int minOffset);

    /** Which form this is, for tests and benchmarks. */
    abstract String name();

    /** Holds the choice apart, so that loading a subclass does not make it (which loads the subclass). */
    private static final class Chosen {
        static final BinMinima INSTANCE = VectorForms.choose(BinMinima.class, "VectorBinMinima", new Scalar());
    }

    /**
     * Bin by bin over the buffer: the bin's seed, multiplier and minimum stay in registers and
     * the new-minimum branch is rarely taken, about one multiplication a cycle.
     */
    static final class Scalar extends BinMinima {
        @Override
        void fold(long[] hashes, int from, int to, long[] seeds, long[] multipliers, int firstBin, int bins, long[] min, int minOffset) {
            for (int k = firstBin; k < firstBin + bins; k++) {
                long seed = seeds[k];
                long multiplier = multipliers[k];
                long m = min[minOffset + k];
                for (int i = from; i < to; i++) {
                    long v = (hashes[i] ^ seed) * multiplier;
                    if (v < m) {
                        m = v;
                    }
                }
                min[minOffset + k] = m;
            }
        }

        @Override
        String name() {
            return "scalar";
        }
    }
}
