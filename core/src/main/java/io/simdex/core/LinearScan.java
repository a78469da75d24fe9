package io.simdex.core;

import java.util.Arrays;

/**
 * The reference answer: every stored fingerprint within a distance, by comparing against all
 * of them. O(n) per query; tests check each index path against it.
 */
public final class LinearScan {
    private final long[] fingerprints;

    public LinearScan(long[] fingerprints) {
        this.fingerprints = fingerprints.clone();
    }

    /** Distinct stored fingerprints within {@code maxDistance} of {@code query}, sorted unsigned. */
    public long[] within(long query, int maxDistance) {
        return Arrays.stream(fingerprints)
                .filter(f -> Hamming.distance(f, query) <= maxDistance)
                .distinct()
                .boxed().sorted(Long::compareUnsigned).mapToLong(Long::longValue).toArray();
    }
}
