package io.simdex.fingerprint;

import java.util.Arrays;

/**
 * The reference answer: every stored fingerprint within a distance, by comparing against all
 * of them. O(n) per query; tests check each index path against it. Lives in test sources and
 * reaches other modules' tests through this module's test-jar.
 */
public final class LinearScan {
    private final long[] fingerprints;

    public LinearScan(long[] fingerprints) {
        this.fingerprints = fingerprints.clone();
    }

    /**
     * Distinct stored fingerprints within {@code maxDistance} of {@code query}, sorted unsigned
     * (so {@code -1L} comes last); repeats appear once. {@code maxDistance} 64 or more returns
     * every distinct stored value, a negative one nothing.
     */
    public long[] within(long query, int maxDistance) {
        return Arrays.stream(fingerprints)
                .filter(f -> Hamming.distance(f, query) <= maxDistance)
                .distinct()
                .boxed().sorted(Long::compareUnsigned).mapToLong(Long::longValue).toArray();
    }
}
