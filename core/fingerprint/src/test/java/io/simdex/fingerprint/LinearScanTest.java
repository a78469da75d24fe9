package io.simdex.fingerprint;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

class LinearScanTest {
    private final LinearScan scan = new LinearScan(new long[] {-1L, 0L, 1L, 1L, 3L, Long.MIN_VALUE});

    @Test
    void within_repeatsOnceSortedUnsigned() {
        assertArrayEquals(new long[] {0L, 1L, 3L}, scan.within(1L, 1));
    }

    @Test
    void within_distanceZero_exactMatchOnly() {
        assertArrayEquals(new long[] {-1L}, scan.within(-1L, 0));
        assertArrayEquals(new long[] {}, scan.within(2L, 0));
    }

    @Test
    void within_sixtyFour_everyDistinctValue_negative_nothing() {
        assertArrayEquals(new long[] {0L, 1L, 3L, Long.MIN_VALUE, -1L}, scan.within(0L, 64));
        assertArrayEquals(new long[] {}, scan.within(0L, -1));
    }

    @Test
    void constructor_copiesInput() {
        long[] stored = {5L};
        LinearScan copy = new LinearScan(stored);
        stored[0] = 6L;
        assertArrayEquals(new long[] {5L}, copy.within(5L, 0));
    }
}
