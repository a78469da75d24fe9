package io.simdex.server.store;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class TableGeometryTest {
    private static final int ALL_BUCKETS = 4 * 65536;

    @Test
    void forExpected_slotsForMeanPlusTwoSigma_inTheFewestPagesOfAtMost512() {
        // m = 50M / 65536 = 762.9; m + 2 sqrt(m) = 818.2 -> 819 slots: two pages of 410.
        assertEquals(new TableGeometry(410, 2, 2L * ALL_BUCKETS), TableGeometry.forExpected(50_000_000, ALL_BUCKETS));
        // 10M: 152.6 + 24.7 -> 178 slots, one page.
        assertEquals(new TableGeometry(178, 1, ALL_BUCKETS), TableGeometry.forExpected(10_000_000, ALL_BUCKETS));
    }

    @Test
    void forExpected_edges_onePageUpTo512Slots_smallestPageEight() {
        // 30M: 457.8 + 42.8 -> 501 slots still fit one page; 31M: 473.0 + 43.5 -> 517 need two of 259.
        assertEquals(new TableGeometry(501, 1, ALL_BUCKETS), TableGeometry.forExpected(30_000_000, ALL_BUCKETS));
        assertEquals(new TableGeometry(259, 2, 2L * ALL_BUCKETS), TableGeometry.forExpected(31_000_000, ALL_BUCKETS));
        assertEquals(new TableGeometry(8, 1, 1024), TableGeometry.forExpected(0, 1024));
    }
}
