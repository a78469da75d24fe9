package io.simdex.server.store;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

class TableGeometryTest {
    private static final int ALL_BUCKETS = 4 * 65536;

    @Test
    void forExpected_slotsForMeanPlusTwoSigma_inTheFewestPagesOfAtMost512() {
        // m = 50M / 65536 = 762.9; m + 2 sqrt(m) = 818.2 -> 819 slots: two pages of 410.
        assertEquals(small(410, 2, 2L * ALL_BUCKETS), TableGeometry.forExpected(50_000_000, ALL_BUCKETS));
        // 10M: 152.6 + 24.7 -> 178 slots, one page.
        assertEquals(small(178, 1, ALL_BUCKETS), TableGeometry.forExpected(10_000_000, ALL_BUCKETS));
    }

    @Test
    void forExpected_edges_onePageUpTo512Slots_smallestPageEight() {
        // 30M: 457.8 + 42.8 -> 501 slots still fit one page; 31M: 473.0 + 43.5 -> 517 need two of 259.
        assertEquals(small(501, 1, ALL_BUCKETS), TableGeometry.forExpected(30_000_000, ALL_BUCKETS));
        assertEquals(small(259, 2, 2L * ALL_BUCKETS), TableGeometry.forExpected(31_000_000, ALL_BUCKETS));
        assertEquals(small(8, 1, 1024), TableGeometry.forExpected(0, 1024));
    }

    @Test
    void sizes_smallStart_firstFileThenExpectedDoubling_sizedStoreDoublesFromExpected() {
        TableGeometry small = small(8, 1, 1024);
        assertEquals(new GrowingMap.Sizes(1024, 5000), small.sizes(5000));
        assertEquals(new GrowingMap.Sizes(100, 100), small.sizes(100), "a first file no larger than the expected load");
        assertEquals(1024, small.sizes(5000).of(0));
        assertEquals(5000, small.sizes(5000).of(1));
        assertEquals(20000, small.sizes(5000).of(3));
        GrowingMap.Sizes sized = new TableGeometry(8, 1, 1024).sizes(5000);
        assertEquals(5000, sized.of(0));
        assertEquals(10000, sized.of(1));
    }

    @Test
    void loadOrStore_fileWithoutFirstEntries_isAStoreSizedFromTheStart(@TempDir Path dir) throws Exception {
        // As stores created before maps started small wrote it: their first files hold the expected load.
        Files.writeString(dir.resolve(TableGeometry.FILE), "pageCapacity=24\npagesPerGeneration=1\npagesPerMap=65536\nentryChecksums=false\n");
        TableGeometry loaded = TableGeometry.loadOrStore(dir, TableGeometry.forExpected(1_000_000, 65536));
        // Nor overflowChecksums: their overflow pages kept Chronicle Map's entry checksums.
        assertEquals(new TableGeometry(24, 1, 65536, false, 0, true), loaded);
        Path fresh = dir.resolve("fresh");
        Files.createDirectories(fresh);
        TableGeometry stored = TableGeometry.loadOrStore(fresh, TableGeometry.forExpected(1_000_000, 65536));
        assertEquals(stored, TableGeometry.loadOrStore(fresh, new TableGeometry(8, 1, 1)), "the stored geometry wins over a new one");
        assertEquals(TableGeometry.FIRST_ENTRIES, stored.firstEntries());
    }

    @Test
    void capacity_basePagesAndFirstOverflowPage_thenDoublingUpTo512() {
        TableGeometry g = TableGeometry.forExpected(1_000_000, ALL_BUCKETS);
        assertEquals(24, g.pageCapacity());
        int[] expected = {24, 24, 48, 96, 192, 384, 512, 512, 512};
        for (int page = 0; page < expected.length; page++) {
            assertEquals(expected[page], g.capacity(page), "page " + page);
        }
        assertArrayEquals(new int[]{48, 96, 192, 384, 512}, g.grownCapacities());
        assertEquals(512, g.capacity(Integer.MAX_VALUE), "no overflow of the shift");
        TableGeometry large = TableGeometry.forExpected(50_000_000, ALL_BUCKETS);
        assertArrayEquals(new int[]{512}, large.grownCapacities());
        assertEquals(410, large.capacity(2));
        assertEquals(512, large.capacity(3));
    }

    @Test
    void capacity_fixedPages_everyPageAndNoGrownMaps() {
        TableGeometry fixed = new TableGeometry(24, 1, 65536, false, 0, false);
        assertEquals(24, fixed.maxPageCapacity());
        for (int page = 0; page < 10; page++) {
            assertEquals(24, fixed.capacity(page));
        }
        assertEquals(0, fixed.grownCapacities().length);
    }

    @Test
    void loadOrStore_maxPageCapacity_roundTrips_absentMeansFixedPages(@TempDir Path dir) throws Exception {
        TableGeometry fresh = TableGeometry.forExpected(1_000_000, 65536);
        assertEquals(fresh, TableGeometry.loadOrStore(dir, fresh));
        assertEquals(fresh, TableGeometry.loadOrStore(dir, new TableGeometry(8, 1, 1)));
        Path old = dir.resolve("old");
        Files.createDirectories(old);
        Files.writeString(old.resolve(TableGeometry.FILE),
                "pageCapacity=24\npagesPerGeneration=1\npagesPerMap=65536\nentryChecksums=false\nfirstEntries=1024\noverflowChecksums=false\n");
        assertEquals(new TableGeometry(24, 1, 65536, false, 1024, false, 24), TableGeometry.loadOrStore(old, fresh));
    }

    private static TableGeometry small(int capacity, int pages, long pagesPerMap) {
        return new TableGeometry(capacity, pages, pagesPerMap, false, TableGeometry.FIRST_ENTRIES, false, Math.max(capacity, TableGeometry.MAX_CAPACITY));
    }
}
