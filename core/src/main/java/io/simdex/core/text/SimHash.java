package io.simdex.core.text;

import java.util.Arrays;

/**
 * The SimHash kernel: sums each feature's weight into 64 counters, plus where the feature's hash
 * has a 1 bit and minus where it has a 0, then keeps the signs. Bit i of the result is 1 iff
 * counter i is strictly positive, so a tie at zero, and an empty sum, give 0.
 *
 * <h2>Why near-duplicates get near fingerprints</h2>
 * Read bit i of every feature's hash as a random ±1 coordinate: counter i is then the dot
 * product of the document's weight vector with random direction i, and bit i says on which side
 * of that hyperplane the document lies. Two documents at angle θ fall on different sides of a
 * random hyperplane with probability θ/π, so their expected Hamming distance is about 64·θ/π
 * (Charikar, "Similarity Estimation Techniques from Rounding Algorithms", STOC 2002; applied to
 * 64-bit web near-duplicates by Manku, Jain and Das Sarma, WWW 2007). A few changed features
 * move each counter by a few weights, which flips only the counters that were near zero: the
 * fewer and lighter a document's features, the more of its counters are.
 *
 * <h2>Why adding per occurrence is TF weighting</h2>
 * The counters are linear in the weights: adding a feature k times with weight w equals adding
 * it once with weight k·w. Callers may therefore feed every occurrence with its idf (or 1) and
 * get tf·idf weighting without counting terms first.
 *
 * <p>An instance is a mutable accumulator for one document on one thread; {@link #of} is the
 * one-shot form.
 */
public final class SimHash {
    /**
     * Features buffered before they are summed: a run lets the vector form keep the counters in
     * registers ({@link SimHashSums}). A 300-word text is about five runs.
     */
    private static final int RUN = 64;
    private static final SimHashSums SUMS = SimHashSums.chosen();

    private final double[] counters = new double[Long.SIZE];
    private final long[] hashes = new long[RUN];
    private final double[] weights = new double[RUN];
    private int buffered;

    /** Adds {@code weight} to counter i where bit i of {@code hash} is 1, subtracts it where 0. */
    public void add(long hash, double weight) {
        if (!Double.isFinite(weight)) {
            throw new IllegalArgumentException("weight must be finite, got " + weight);
        }
        hashes[buffered] = hash;
        weights[buffered++] = weight;
        if (buffered == RUN) {
            sum();
        }
    }

    private void sum() {
        SUMS.add(counters, hashes, weights, buffered);
        buffered = 0;
    }

    /** The fingerprint: bit i is 1 iff counter i is greater than zero. */
    public long value() {
        sum();
        final double[] c = counters;
        long fingerprint = 0L;
        for (int bit = 0; bit < Long.SIZE; bit++) {
            if (c[bit] > 0) {
                fingerprint |= 1L << bit;
            }
        }
        return fingerprint;
    }

    /** Zeroes the counters so the instance can take another document. */
    public void reset() {
        buffered = 0;
        Arrays.fill(counters, 0.0);
    }

    /**
     * SimHash of the pairs {@code (hashes[i], weights[i])}.
     *
     * @throws IllegalArgumentException if the arrays differ in length or a weight is not finite
     */
    public static long of(long[] hashes, double[] weights) {
        if (hashes.length != weights.length) {
            throw new IllegalArgumentException(
                    "hashes and weights differ in length: " + hashes.length + " vs " + weights.length);
        }
        SimHash simHash = new SimHash();
        for (int i = 0; i < hashes.length; i++) {
            simHash.add(hashes[i], weights[i]);
        }
        return simHash.value();
    }
}
