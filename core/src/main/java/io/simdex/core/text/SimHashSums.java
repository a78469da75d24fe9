package io.simdex.core.text;

/**
 * SimHash's inner loop over a run of features: counter i gains a feature's weight where bit i of
 * its hash is 1 and loses it where 0. {@link #chosen} is {@link VectorSimHashSums} or the scalar
 * form ({@link VectorForms}); each counter takes the same additions in the same order in both,
 * so the sums, and the fingerprints, are equal bit for bit.
 */
abstract class SimHashSums {
    /** The form this JVM runs. */
    static SimHashSums chosen() {
        return Chosen.INSTANCE;
    }

    /** Adds features {@code hashes[0..n)} with {@code weights[0..n)} (finite) to the 64 {@code counters}. */
    abstract void add(double[] counters, long[] hashes, double[] weights, int n);

    /** Which form this is, for tests and benchmarks. */
    abstract String name();

    /** Holds the choice apart, so that loading a subclass does not make it (which loads the subclass). */
    private static final class Chosen {
        static final SimHashSums INSTANCE = VectorForms.choose(SimHashSums.class, "VectorSimHashSums", new Scalar());
    }

    /**
     * Counter by counter, branch-free: hash bits are random, so "bit ? +w : -w" mispredicts half
     * the time. Bit i of ~hash, moved to the sign position, negates w exactly when bit i is 0;
     * with the branch, character trigrams took 2.7x as long (FingerprintThroughput).
     */
    static final class Scalar extends SimHashSums {
        /** Shift that moves bit 0 to a double's sign bit. */
        private static final int SIGN_SHIFT = Long.SIZE - 1;

        @Override
        void add(double[] counters, long[] hashes, double[] weights, int n) {
            for (int i = 0; i < n; i++) {
                long weightBits = Double.doubleToRawLongBits(weights[i]);
                long zeros = ~hashes[i];
                for (int bit = 0; bit < Long.SIZE; bit++) {
                    counters[bit] += Double.longBitsToDouble(weightBits ^ ((zeros >>> bit) << SIGN_SHIFT));
                }
            }
        }

        @Override
        String name() {
            return "scalar";
        }
    }
}
