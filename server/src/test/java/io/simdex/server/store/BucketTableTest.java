package io.simdex.server.store;

import io.simdex.fingerprint.BitFlips;
import io.simdex.fingerprint.BlockTables;
import io.simdex.fingerprint.LinearScan;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.LongStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BucketTableTest {
    @TempDir
    Path dir;

    /** Small pages and one page per generation, so chains, spills and new generations happen. */
    private static final TableGeometry TINY = new TableGeometry(4, 1, 4096);
    /** Three base pages a bucket: appends go in place to page 0, to later base pages, then to overflow pages. */
    private static final TableGeometry THREE_BASE_PAGES = new TableGeometry(4, 3, 3 * 4096);

    /** As tables created before base pages dropped Chronicle Map's entry checksums: in-place writes keep them current. */
    private static final TableGeometry CHECKSUMMED = new TableGeometry(4, 3, 3 * 4096, true);

    /** As a new store's table: a first base file of 16 pages, then one for every bucket's 3 base pages. */
    private static final TableGeometry SMALL_START = new TableGeometry(4, 3, 3 * 4096, false, 16);

    /** As tables created after base pages dropped entry checksums and before overflow pages did. */
    private static final TableGeometry CHECKSUMMED_OVERFLOW = new TableGeometry(4, 3, 3 * 4096, false, 0, true);

    /** As a new store's table: pages past the first overflow page grow, 4, 4, 8, 16, then 32 residues. */
    private static final TableGeometry GROWING = new TableGeometry(4, 1, 4096, false, 16, false, 32);

    /** Growing pages after three base pages: 4, 4, 4, 4, 8, then 16. */
    private static final TableGeometry GROWING_AFTER_THREE = new TableGeometry(4, 3, 3 * 4096, false, 0, false, 16);

    static List<TableGeometry> geometries() {
        return List.of(TINY, THREE_BASE_PAGES, CHECKSUMMED, SMALL_START, CHECKSUMMED_OVERFLOW, GROWING, GROWING_AFTER_THREE);
    }

    /**
     * One bucket filled far past its base page: its chain takes the pages the geometry's
     * capacities say (each size in a map of its own), and keeps every residue findable as it
     * grows, after a reopen, and as removes shrink it page by page back to nothing.
     */
    @Test
    void growingPages_chainTakesTheGeometrysPages_throughGrowthReopenAndShrinking() {
        SplittableRandom random = new SplittableRandom(31);
        long[] fps = new long[300];
        for (int i = 0; i < fps.length; i++) {
            fps[i] = (random.nextLong() & ~0xFFFFL) | 0x4242;
        }
        fps = Arrays.stream(fps).distinct().toArray();
        try (BucketTable table = new BucketTable(dir, GROWING, true)) {
            for (int i = 0; i < fps.length; i++) {
                assertTrue(table.add(0, fps[i]));
                assertEquals(pagesFor(GROWING, i + 1), table.pages(), "pages after " + (i + 1) + " adds");
            }
        }
        for (int capacity : new int[]{8, 16, 32}) {
            assertTrue(Files.exists(dir.resolve("pages" + capacity + "-0.cm")), "a map of " + capacity + "-residue pages");
        }
        assertFalse(Files.exists(dir.resolve("pages64-0.cm")), "no page past the largest size");
        try (BucketTable table = new BucketTable(dir, GROWING, false)) {
            assertEquals(fps.length, table.entries());
            assertEquals(pagesFor(GROWING, fps.length), table.pages());
            // The first stored goes first: each remove fills its hole from the chain's last page.
            for (int r = 0; r < fps.length; r++) {
                for (int j = r; j < fps.length; j += 37) {
                    MatchBuffer out = new MatchBuffer();
                    table.probe(0, fps[j], 0, out);
                    assertEquals(1, out.size(), r + " removed, fp " + j);
                }
                assertTrue(table.remove(0, fps[r]));
                MatchBuffer gone = new MatchBuffer();
                table.probe(0, fps[r], 0, gone);
                assertEquals(0, gone.size(), "fp " + r + " removed");
                assertEquals(pagesFor(GROWING, fps.length - r - 1), table.pages(), (r + 1) + " removed");
            }
            assertEquals(0, table.entries());
        }
    }

    /** Pages a chain of {@code residues} takes: base and overflow pages of the geometry's capacities, filled in turn. */
    private static long pagesFor(TableGeometry geometry, int residues) {
        long pages = 0;
        for (int left = residues; left > 0; pages++) {
            left -= geometry.capacity((int) pages);
        }
        return pages;
    }

    @ParameterizedTest
    @MethodSource("geometries")
    void probe_plantedNeighbours_matchesLinearScanInEveryTableUnion(TableGeometry geometry) {
        SplittableRandom random = new SplittableRandom(7);
        List<Long> stored = new ArrayList<>();
        List<long[]> queries = new ArrayList<>();
        for (int i = 0; i < 2000; i++) {
            long base = random.nextLong();
            stored.add(base);
            long[] q = new long[6];
            for (int d = 0; d <= 5; d++) {
                q[d] = BitFlips.flip(base, d, random);
            }
            queries.add(q);
        }
        // A crowded bucket: many fingerprints sharing block 0, so its chain is long.
        for (int i = 0; i < 300; i++) {
            stored.add((random.nextLong() & ~0xFFFFL) | 0x1234);
        }
        try (BucketTable table = new BucketTable(dir, geometry, true)) {
            for (long fp : stored) {
                for (int t = 0; t < BlockTables.TABLES; t++) {
                    assertTrue(table.add(t, fp) || stored.indexOf(fp) != stored.lastIndexOf(fp));
                }
            }
            LinearScan reference = new LinearScan(stored.stream().mapToLong(Long::longValue).toArray());
            for (long[] q : queries) {
                for (long query : q) {
                    for (int k = 0; k <= 3; k++) {
                        assertArrayEquals(reference.within(query, k), union(table, query, k),
                                () -> "query " + Long.toHexString(query));
                    }
                }
            }
            // Edge: distance 3 is always found, distance 4 never returned at k = 3.
            long base = stored.get(0);
            assertEquals(1, union(table, queries.get(0)[3], 3).length);
            assertFalse(Arrays.stream(union(table, queries.get(0)[4], 3)).anyMatch(f -> f == base));
        }
    }

    @ParameterizedTest
    @MethodSource("geometries")
    void addAll_runsThatFillStraddleAndChainPages_matchLinearScan_alsoAfterRecovery(TableGeometry geometry) {
        SplittableRandom random = new SplittableRandom(17);
        // In every table a fifth of the blocks is 0x5A5A, a bucket of ~100 entries whose runs
        // reach overflow pages; the rest fall in 40 buckets of ~10, whose runs fill and straddle
        // 4-slot base pages in place.
        long[] fps = new long[500];
        for (int i = 0; i < fps.length; i++) {
            long fp = random.nextLong();
            for (int b = 0; b < BlockTables.TABLES; b++) {
                long block = random.nextInt(5) == 0 ? 0x5A5A : 0x1000 + random.nextInt(40);
                fp = fp & ~(0xFFFFL << (16 * b)) | block << (16 * b);
            }
            fps[i] = fp;
        }
        fps = Arrays.stream(fps).distinct().toArray();
        try (BucketTable table = new BucketTable(dir, geometry, true)) {
            for (int t = 0; t < BlockTables.TABLES; t++) {
                long[] grouped = BlockTables.groupByBlock(fps, fps.length, t);
                for (int from = 0; from < grouped.length; ) {
                    int to = from + 1;
                    int run = 1 + random.nextInt(11);
                    while (to < grouped.length && to - from < run && BlockTables.block(grouped[to], t) == BlockTables.block(grouped[from], t)) {
                        to++;
                    }
                    if (to - from == 1 && random.nextBoolean()) {
                        assertTrue(table.add(t, grouped[from], false));
                    } else {
                        table.addAll(t, grouped, from, to);
                    }
                    from = to;
                }
            }
            assertEquals(4L * fps.length, table.entries());
        }
        LinearScan reference = new LinearScan(fps);
        for (boolean clean : new boolean[]{true, false}) {
            try (BucketTable table = new BucketTable(dir, geometry, clean)) {
                assertEquals(4L * fps.length, table.entries());
                for (int i = 0; i < fps.length; i += 5) {
                    for (int d = 0; d <= 5; d++) {
                        long query = BitFlips.flip(fps[i], d, random);
                        for (int k = 0; k <= 3; k++) {
                            assertArrayEquals(reference.within(query, k), union(table, query, k),
                                    "clean=" + clean + " query " + Long.toHexString(query) + " k=" + k);
                        }
                        // Table by table too: the union would hide an entry lost from one table.
                        for (int t = 0; t < BlockTables.TABLES; t++) {
                            int block = BlockTables.block(query, t);
                            int inTable = t;
                            long[] expected = Arrays.stream(reference.within(query, 3)).filter(f -> BlockTables.block(f, inTable) == block).toArray();
                            MatchBuffer out = new MatchBuffer();
                            table.probe(t, query, 3, out);
                            long[] found = Arrays.stream(out.toArray()).boxed().sorted(Long::compareUnsigned).mapToLong(Long::longValue).toArray();
                            assertArrayEquals(expected, found, "clean=" + clean + " table " + t + " query " + Long.toHexString(query));
                        }
                    }
                }
            }
        }
    }

    @Test
    void addAll_runSpanningTwoBuckets_rejectedBeforeWriting() {
        try (BucketTable table = new BucketTable(dir, TINY, true)) {
            long[] fps = {0x10001L, 0x20001L, 0x30002L};
            IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                    () -> table.addAll(0, fps, 0, 3));
            assertTrue(e.getMessage().contains("more than one bucket"), e.getMessage());
            assertEquals(0, table.entries());
            table.addAll(0, fps, 0, 2);
            assertEquals(2, table.entries());
        }
    }

    /**
     * Runs of one bucket that repeat entries it holds and entries of their own, added across
     * chains of base and overflow pages: the bucket ends as the set union, each entry once, and
     * every entry stays findable after a clean reopen and through recovery.
     */
    @ParameterizedTest
    @MethodSource("geometries")
    void addAbsent_runsOverlappingTheBucketAndThemselves_leaveTheUnionOnce(TableGeometry geometry) {
        SplittableRandom random = new SplittableRandom(23);
        int[] blocks = {0x5A5A, 0x0001, 0xFFFF};
        List<TreeSet<Long>> expected = new ArrayList<>();
        try (BucketTable table = new BucketTable(dir, geometry, true)) {
            for (int b = 0; b < blocks.length; b++) {
                TreeSet<Long> bucket = new TreeSet<>();
                expected.add(bucket);
                List<Long> pool = new ArrayList<>();
                for (int i = 0; i < 60; i++) {
                    pool.add((random.nextLong() & ~0xFFFFL) | blocks[b]); // table 0's block is the low 16 bits
                }
                for (int round = 0; round < 8; round++) {
                    long[] run = new long[1 + random.nextInt(25)];
                    for (int i = 0; i < run.length; i++) {
                        run[i] = pool.get(random.nextInt(Math.min(pool.size(), 10 + 7 * round)));
                    }
                    TreeSet<Long> before = new TreeSet<>(bucket);
                    Arrays.stream(run).forEach(bucket::add);
                    // Padding outside from..to must be left alone.
                    long[] padded = new long[run.length + 2];
                    System.arraycopy(run, 0, padded, 1, run.length);
                    padded[0] = 7;
                    padded[padded.length - 1] = 9;
                    assertEquals(bucket.size() - before.size(), table.addAbsent(0, padded, 1, 1 + run.length), "round " + round);
                    assertEquals(7, padded[0]);
                    assertEquals(9, padded[padded.length - 1]);
                    TreeSet<Long> read = new TreeSet<>();
                    long[] held = table.fingerprints(0, blocks[b]);
                    Arrays.stream(held).forEach(read::add);
                    assertEquals(bucket, read, "block " + Integer.toHexString(blocks[b]) + " round " + round);
                    assertEquals(bucket.size(), held.length, "each entry once");
                }
            }
            assertEquals(expected.stream().mapToLong(TreeSet::size).sum(), table.entries());
            assertEquals(0, table.addAbsent(0, new long[]{expected.get(0).first()}, 0, 1), "held already");
            assertEquals(0, table.addAbsent(0, new long[0], 0, 0));
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> table.addAbsent(0, new long[]{0x10001L, 0x20002L}, 0, 2));
            assertTrue(e.getMessage().contains("more than one bucket"), e.getMessage());
        }
        for (boolean clean : new boolean[]{true, false}) {
            try (BucketTable table = new BucketTable(dir, geometry, clean)) {
                for (TreeSet<Long> bucket : expected) {
                    for (long fp : bucket) {
                        MatchBuffer out = new MatchBuffer();
                        table.probe(0, fp, 0, out);
                        assertArrayEquals(new long[]{fp}, out.toArray(), "clean=" + clean + " " + Long.toHexString(fp));
                    }
                }
            }
        }
    }

    @Test
    void add_sameFingerprintTwice_storedOnce() {
        try (BucketTable table = new BucketTable(dir, TINY, true)) {
            assertTrue(table.add(2, 42L));
            assertFalse(table.add(2, 42L));
            assertEquals(1, table.entries());
        }
    }

    @Test
    void add_unchecked_appendsWithoutScanning_andAWrongGuessIsAHarmlessDuplicate() {
        try (BucketTable table = new BucketTable(dir, TINY, true)) {
            for (long i = 0; i < 50; i++) {
                assertTrue(table.add(0, (i << 16) | 0xABCD, false), "appended to a 4-slot page chain");
            }
            MatchBuffer out = new MatchBuffer();
            table.probe(0, (7L << 16) | 0xABCD, 0, out);
            assertEquals(1, out.size());

            assertTrue(table.add(0, (7L << 16) | 0xABCD, false), "unchecked: no scan, appended again");
            out.clear();
            table.probe(0, (7L << 16) | 0xABCD, 0, out);
            assertEquals(2, out.size(), "the duplicate is found twice (the router keeps distinct fingerprints)");
            assertFalse(table.add(0, (7L << 16) | 0xABCD, true), "a checked add sees it");
            assertTrue(table.remove(0, (7L << 16) | 0xABCD));
            assertTrue(table.remove(0, (7L << 16) | 0xABCD));
            assertFalse(table.remove(0, (7L << 16) | 0xABCD));
            assertEquals(49, table.entries());
        }
    }

    @ParameterizedTest
    @MethodSource("geometries")
    void remove_fromLongChain_keepsEveryOtherEntryFindable(TableGeometry geometry) {
        SplittableRandom random = new SplittableRandom(11);
        TreeSet<Long> present = new TreeSet<>();
        try (BucketTable table = new BucketTable(dir, geometry, true)) {
            for (int i = 0; i < 200; i++) {
                long fp = (random.nextLong() & ~0xFFFFL) | 0xBEEF; // all in one table-0 bucket
                table.add(0, fp);
                present.add(fp);
            }
            List<Long> order = new ArrayList<>(present);
            for (int i = 0; i < order.size(); i += 3) {
                assertTrue(table.remove(0, order.get(i)));
                assertFalse(table.remove(0, order.get(i)));
                present.remove(order.get(i));
            }
            for (long fp : order) {
                MatchBuffer out = new MatchBuffer();
                table.probe(0, fp, 0, out);
                assertEquals(present.contains(fp) ? 1 : 0, out.size(), () -> Long.toHexString(fp));
            }
            assertEquals(present.size(), table.entries());
            for (long fp : new ArrayList<>(present)) {
                assertTrue(table.remove(0, fp));
            }
            assertEquals(0, table.entries());
            MatchBuffer out = new MatchBuffer();
            table.probe(0, order.get(1), 3, out);
            assertEquals(0, out.size());
        }
    }

    @Test
    void fingerprintsAndClear_bucketOfManyPages_readAndEmptyOnlyThatBucket() {
        SplittableRandom random = new SplittableRandom(13);
        TreeSet<Long> crowd = new TreeSet<>();
        try (BucketTable table = new BucketTable(dir, TINY, true)) {
            for (int i = 0; i < 37; i++) {
                long fp = (random.nextLong() & ~0xFFFFL) | 0xCAFE; // one table-0 bucket, 10 pages of 4
                table.add(0, fp);
                crowd.add(fp);
            }
            long neighbour = (random.nextLong() & ~0xFFFFL) | 0xCAFF;
            table.add(0, neighbour);
            table.add(1, crowd.first());

            TreeSet<Long> read = new TreeSet<>();
            Arrays.stream(table.fingerprints(0, 0xCAFE)).forEach(read::add);
            assertEquals(crowd, read);
            assertEquals(0, table.fingerprints(0, 0x1234).length);

            assertEquals(37, table.clear(0, 0xCAFE));
            assertEquals(0, table.fingerprints(0, 0xCAFE).length);
            assertEquals(0, table.clear(0, 0xCAFE), "already empty");
            assertEquals(2, table.entries(), "the neighbour bucket and table 1 keep theirs");
            assertArrayEquals(new long[]{neighbour}, table.fingerprints(0, 0xCAFF));
            assertTrue(table.add(0, crowd.last()), "an emptied bucket takes entries again");
            assertArrayEquals(new long[]{crowd.last()}, table.fingerprints(0, 0xCAFE));
        }
    }

    @ParameterizedTest
    @MethodSource("geometries")
    void reopen_afterCleanClose_andThroughRecovery_findsEverything(TableGeometry geometry) {
        SplittableRandom random = new SplittableRandom(3);
        // Table 1 blocks limited to 8, so pages fill, chain and are written in place many times.
        long[] fps = random.longs(3000).map(fp -> (fp & ~0xFFFF0000L) | ((fp & 7) << 16)).distinct().toArray();
        try (BucketTable table = new BucketTable(dir, geometry, true)) {
            for (long fp : fps) {
                table.add(1, fp);
            }
            for (int i = 0; i < 100; i++) {
                assertTrue(table.remove(1, fps[i * 7]));
            }
        }
        // clean = false opens through Chronicle Map's recovery, which drops any page whose
        // checksum (where the table keeps them) is stale.
        for (boolean clean : new boolean[]{true, false}) {
            try (BucketTable table = new BucketTable(dir, geometry, clean)) {
                assertEquals(fps.length - 100, table.entries());
                for (int i = 0; i < fps.length; i++) {
                    MatchBuffer out = new MatchBuffer();
                    table.probe(1, fps[i], 0, out);
                    assertEquals(i % 7 == 0 && i / 7 < 100 ? 0 : 1, out.size(), "clean=" + clean + " fp " + i);
                }
            }
        }
    }

    /**
     * A table grown far past its geometry: chains of 200 pages, whose overflow pages fill
     * several generations of the overflow map. Reopened, the table knows where every page lies
     * from reading the maps, and a probe finds each page in its generation; then pages are
     * removed and made anew, so that the addresses read at open must give way to new ones.
     */
    @Test
    void reopen_overflowOfSeveralGenerations_everyPageFoundAndFollowedThroughChanges() {
        SplittableRandom random = new SplittableRandom(23);
        int buckets = 16;
        int perBucket = 800;
        long[] fps = new long[buckets * perBucket];
        for (int i = 0; i < fps.length; i++) {
            fps[i] = (random.nextLong() & ~0xFFFF_0000_0000L) | (long) (0x100 + i % buckets) << 32;
        }
        try (BucketTable table = new BucketTable(dir, TINY, true)) {
            for (long fp : fps) {
                assertTrue(table.add(2, fp));
            }
        }
        assertTrue(Files.exists(dir.resolve("overflow-2.cm")), "overflow pages spread over three generations or more");
        try (BucketTable table = new BucketTable(dir, TINY, false)) {
            assertEquals(fps.length, table.entries());
            for (int i = 0; i < fps.length; i++) {
                MatchBuffer out = new MatchBuffer();
                table.probe(2, fps[i], 0, out);
                assertEquals(1, out.size(), "fp " + i);
            }
            MatchBuffer all = new MatchBuffer();
            table.probe(2, fps[0], 64, all);
            assertEquals(perBucket, all.size(), "a whole chain of " + perBucket / TINY.pageCapacity() + " pages");
            // Bucket 0's chain shrunk to half, its last pages removed, then grown again into new pages.
            List<Long> kept = new ArrayList<>();
            for (int i = 0; i < fps.length; i += buckets) {
                if (i / buckets % 2 == 0) {
                    assertTrue(table.remove(2, fps[i]));
                } else {
                    kept.add(fps[i]);
                }
            }
            long[] fresh = random.longs(perBucket / 2).map(fp -> (fp & ~0xFFFF_0000_0000L) | 0x100L << 32).toArray();
            for (long fp : fresh) {
                table.add(2, fp);
                kept.add(fp);
            }
            assertArrayEquals(sortedUnsigned(kept), probeAll(table, 2, fps[0]));
        }
    }


    /**
     * Probes remember where base pages lie; a bucket emptied (by clear, or by removes down to
     * nothing) and written anew must be read at its new pages, not at the remembered ones.
     */
    @ParameterizedTest
    @MethodSource("geometries")
    void probe_afterABucketsPagesAreRemovedAndWrittenAnew_readsOnlyTheNewOnes(TableGeometry geometry) {
        SplittableRandom random = new SplittableRandom(17);
        try (BucketTable table = new BucketTable(dir, geometry, true)) {
            for (boolean byRemoves : new boolean[]{false, true}) {
                long[] old = random.longs(10).map(fp -> (fp & ~0xFFFFL) | 0xD00D).toArray();
                for (long fp : old) {
                    table.add(0, fp);
                }
                for (long fp : old) {
                    assertEquals(1, exactMatches(table, fp), "found, and its pages' addresses remembered");
                }
                if (byRemoves) {
                    for (long fp : old) {
                        assertTrue(table.remove(0, fp));
                    }
                } else {
                    assertEquals(old.length, table.clear(0, 0xD00D));
                }
                // Other buckets take pages meanwhile, so the map may place the new ones anywhere.
                for (int i = 0; i < 50; i++) {
                    table.add(0, (random.nextLong() & ~0xFFFFL) | (0xE000 + i));
                }
                long[] fresh = random.longs(6).map(fp -> (fp & ~0xFFFFL) | 0xD00D).toArray();
                for (long fp : fresh) {
                    table.add(0, fp);
                }
                for (long fp : old) {
                    assertEquals(0, exactMatches(table, fp), "byRemoves=" + byRemoves + ": removed " + Long.toHexString(fp));
                }
                for (long fp : fresh) {
                    assertEquals(1, exactMatches(table, fp), "byRemoves=" + byRemoves + ": new " + Long.toHexString(fp));
                }
                assertEquals(fresh.length, table.fingerprints(0, 0xD00D).length);
                table.clear(0, 0xD00D);
            }
        }
    }

    /**
     * Close unmaps the files whose addresses probes remember: it must wait for probes in flight,
     * and later probes must fail cleanly. A probe reading unmapped memory would kill this JVM.
     */
    @Test
    void close_whileProbesRun_waitsForThem_andLaterProbesFailCleanly() throws Exception {
        long[] fps = new SplittableRandom(19).longs(5000).toArray();
        BucketTable table = new BucketTable(dir, new TableGeometry(8, 1, 1 << 15), true);
        for (long fp : fps) {
            for (int t = 0; t < BlockTables.TABLES; t++) {
                table.add(t, fp);
            }
        }
        AtomicLong probes = new AtomicLong();
        AtomicReference<Throwable> unexpected = new AtomicReference<>();
        CountDownLatch started = new CountDownLatch(4);
        List<Thread> threads = new ArrayList<>();
        for (int n = 0; n < 4; n++) {
            int seed = n;
            Thread t = new Thread(() -> {
                started.countDown();
                MatchBuffer out = new MatchBuffer();
                for (int i = seed; ; i++) {
                    try {
                        out.clear();
                        table.probe(i & 3, fps[i % fps.length], 3, out);
                        probes.incrementAndGet();
                    } catch (IllegalStateException closed) {
                        return;
                    } catch (Throwable e) {
                        unexpected.set(e);
                        return;
                    }
                }
            });
            t.start();
            threads.add(t);
        }
        started.await();
        Thread.sleep(200);
        table.close();
        for (Thread t : threads) {
            t.join(10_000);
            assertFalse(t.isAlive(), "every prober saw the table closed");
        }
        assertEquals(null, unexpected.get());
        assertTrue(probes.get() > 0, "probes ran before the close");
        MatchBuffer out = new MatchBuffer();
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> table.probe(0, fps[0], 3, out));
        assertTrue(e.getMessage().contains("closed"), e.getMessage());
        // A probe of an empty bucket takes no stripe lock, and must see the close all the same.
        Set<Integer> used = new HashSet<>();
        for (long fp : fps) {
            used.add(BlockTables.block(fp, 0));
        }
        long empty = LongStream.range(0, 1 << 16).filter(b -> !used.contains((int) b)).findFirst().orElseThrow() * 0x0001_0001_0001_0001L;
        assertFalse(used.contains(BlockTables.block(empty, 0)));
        e = assertThrows(IllegalStateException.class, () -> table.probe(0, empty, 3, out));
        assertTrue(e.getMessage().contains("closed"), e.getMessage());
    }

    /**
     * Prefetch reads pages under one stripe's lock, not their own: racing adds and removes that
     * make and drop the pages of crowded buckets (chains of pages of 4), and then a close, it
     * must read only mapped memory (anything else kills this JVM), and a probe after it finds
     * what a linear scan does.
     */
    @Test
    void prefetch_racingWritesAndClose_readsOnlyMappedPages_andChangesNoAnswer() throws Exception {
        SplittableRandom random = new SplittableRandom(23);
        // Every block one of 64 values: about 30 fingerprints a bucket, chains of 8 pages of 4.
        long[] pool = random.longs(2000).map(fp -> fp & 0x0707_0707_0707_0707L).toArray();
        BucketTable table = new BucketTable(dir, TINY, true);
        Set<Long> stored = new HashSet<>();
        for (int i = 0; i < pool.length; i += 2) {
            for (int t = 0; t < BlockTables.TABLES; t++) {
                table.add(t, pool[i]);
            }
            stored.add(pool[i]);
        }
        PrefetchRace prefetcher = new PrefetchRace(pool, 29, table::prefetch);
        for (int op = 0; op < 40_000 || prefetcher.prefetches() < 1000; op++) {
            long fp = pool[random.nextInt(pool.length)];
            for (int t = 0; t < BlockTables.TABLES; t++) {
                if (stored.contains(fp)) {
                    assertTrue(table.remove(t, fp));
                } else {
                    assertTrue(table.add(t, fp));
                }
            }
            if (!stored.remove(fp)) {
                stored.add(fp);
            }
        }
        LinearScan reference = new LinearScan(stored.stream().mapToLong(Long::longValue).toArray());
        for (int i = 0; i < 200; i++) {
            long query = BitFlips.flip(pool[i], i % 6, random);
            table.prefetch(new int[] {0, 1, 2, 3}, new long[] {query, query, query, query}, 4);
            assertArrayEquals(reference.within(query, 3), union(table, query, 3), () -> "query " + Long.toHexString(query));
        }
        table.close();
        prefetcher.tableClosed();
    }

    /**
     * Writers check for a close as probes do: the table remembers where its pages lie, and a
     * write after the close that unmapped them (an expired generation) would read unmapped
     * memory, which kills this JVM, instead of failing.
     */
    @Test
    void writesAndCopies_afterClose_failCleanlyWithoutReadingUnmappedPages() {
        long fp = 0x0123_4567_89AB_CDEFL;
        BucketTable table = new BucketTable(dir, TINY, true);
        for (int t = 0; t < BlockTables.TABLES; t++) {
            table.add(t, fp);
        }
        assertEquals(1, exactMatches(table, fp), "the probe remembered page 0's address");
        table.close();
        int block = BlockTables.block(fp, 0);
        List<Executable> writes = List.of(
                () -> table.add(0, fp),
                () -> table.add(0, fp ^ 1, false),
                () -> table.addAll(0, new long[] {fp ^ 2}, 0, 1),
                () -> table.remove(0, fp),
                () -> table.fingerprints(0, block),
                () -> table.clear(0, block));
        for (Executable write : writes) {
            IllegalStateException e = assertThrows(IllegalStateException.class, write);
            assertTrue(e.getMessage().contains("closed"), e.getMessage());
        }
    }

    private static int exactMatches(BucketTable table, long fp) {
        MatchBuffer out = new MatchBuffer();
        table.probe(0, fp, 0, out);
        return out.size();
    }

    /**
     * Probes between the writes of one bucket: the page addresses a probe remembers (a missing
     * page, overflow pages) must follow the pages that later writes create and remove.
     */
    @ParameterizedTest
    @MethodSource("geometries")
    void probe_betweenAddsAndRemovesOfOneBucket_seesEveryPageChange(TableGeometry geometry) {
        SplittableRandom random = new SplittableRandom(11);
        long[] fps = new long[40];
        for (int i = 0; i < fps.length; i++) {
            fps[i] = (random.nextLong() & ~0xFFFFL) | 0x4321; // one bucket of table 0: 10 pages of 4
        }
        List<Long> stored = new ArrayList<>();
        try (BucketTable table = new BucketTable(dir, geometry, true)) {
            assertArrayEquals(new long[0], probeAll(table, fps[0]), "the empty bucket, remembered as missing");
            for (long fp : fps) {
                table.add(0, fp);
                stored.add(fp);
                assertArrayEquals(sortedUnsigned(stored), probeAll(table, fp), "after adding " + Long.toHexString(fp));
            }
            for (int i = fps.length - 1; i >= 0; i -= 2) {
                assertTrue(table.remove(0, fps[i]));
                stored.remove(fps[i]);
                assertArrayEquals(sortedUnsigned(stored), probeAll(table, fps[0]), "after removing " + Long.toHexString(fps[i]));
            }
            for (int i = fps.length - 1; i >= 0; i -= 2) {
                table.add(0, fps[i]);
                stored.add(fps[i]);
            }
            assertArrayEquals(sortedUnsigned(stored), probeAll(table, fps[0]), "after adding back");
        }
    }

    /** Everything in fp's bucket of table 0: a residue differs in at most 48 bits. */
    private static long[] probeAll(BucketTable table, long fp) {
        return probeAll(table, 0, fp);
    }

    private static long[] probeAll(BucketTable table, int t, long fp) {
        MatchBuffer out = new MatchBuffer();
        table.probe(t, fp, 64, out);
        return Arrays.stream(out.toArray()).distinct().boxed().sorted(Long::compareUnsigned).mapToLong(Long::longValue).toArray();
    }

    private static long[] sortedUnsigned(List<Long> fps) {
        return fps.stream().sorted(Long::compareUnsigned).mapToLong(Long::longValue).toArray();
    }

    private static long[] union(BucketTable table, long query, int k) {
        MatchBuffer out = new MatchBuffer();
        for (int t = 0; t < BlockTables.TABLES; t++) {
            table.probe(t, query, k, out);
        }
        return Arrays.stream(out.toArray()).distinct().boxed().sorted(Long::compareUnsigned)
                .mapToLong(Long::longValue).toArray();
    }
}
