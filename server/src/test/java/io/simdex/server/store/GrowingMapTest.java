package io.simdex.server.store;

import net.openhft.chronicle.map.ChronicleMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Generations added as a map fills: the next one's file made ahead of need, and every key kept across them and across reopening. */
class GrowingMapTest {
    private static final int FIRST = 1000;

    @TempDir
    Path dir;

    private GrowingMap<Long, Long> open() {
        return new GrowingMap<>(dir, "m", FIRST, n -> ChronicleMap.of(Long.class, Long.class).entries(n), false);
    }

    @Test
    void nextGeneration_isMadeOnceTheNewestIsNearlyFull_thenAddedWhenItIsFull() throws Exception {
        try (GrowingMap<Long, Long> m = open()) {
            long mark = (long) (FIRST * GrowingMap.PREPARE_AT);
            for (long k = 0; k < mark - 1; k++) {
                m.put(k, k * 7);
            }
            assertFalse(Files.exists(dir.resolve("m-1.cm")), "made before the newest generation held PREPARE_AT of its entries");
            m.put(mark - 1, (mark - 1) * 7);
            awaitFile(dir.resolve("m-1.cm"));
            assertEquals(1, m.generationCount(), "a file made ahead is not a generation until the newest is full");
            for (long k = mark; k < FIRST + 10; k++) {
                m.put(k, k * 7);
            }
            assertEquals(2, m.generationCount());
            for (long k = 0; k < FIRST + 10; k++) {
                assertEquals(k * 7, m.get(k), "key " + k);
            }
            assertEquals(FIRST + 10, m.size());
        }
        assertFalse(Files.exists(dir.resolve("m-1.cm.preparing")));
    }

    @Test
    void aGenerationThatHoldsEveryKeyTheMapCanHave_getsNoSuccessorMadeAhead_yetOneIsAddedIfKeysExceedTheBound() throws Exception {
        // 1,000 keys at most: the second generation (1,000 entries) holds them all; it reaches
        // PREPARE_AT of its entries once the first generation's keys have been removed and others
        // put. The unbounded map, given the same keys and 90 more, makes its third generation ahead.
        for (boolean bounded : new boolean[] {false, true}) {
            Path d = dir.resolve(bounded ? "bounded" : "unbounded");
            Files.createDirectories(d);
            GrowingMap.Sizes sizes = new GrowingMap.Sizes(100, 1000);
            try (GrowingMap<Long, Long> m = new GrowingMap<>(d, "m", bounded ? sizes.atMost(1000) : sizes,
                    n -> ChronicleMap.of(Long.class, Long.class).entries(n), true)) {
                for (long k = 0; k < (bounded ? 1000 : 1090); k++) {
                    m.put(k, k);
                }
                if (bounded) {
                    for (long k = 0; k < 100; k++) {
                        assertEquals(k, m.remove(k));
                    }
                    for (long k = 1000; k < 1100; k++) {
                        m.put(k, k);
                    }
                    assertEquals(1000, m.size());
                }
                assertEquals(!bounded, m.nextMadeAhead(), bounded ? "made ahead within the bound" : "the unbounded map makes it");
                if (bounded) {
                    for (long k = 1100; k < 1250; k++) { // past the bound: a third generation all the same
                        m.put(k, k);
                    }
                    assertEquals(3, m.generationCount());
                    assertEquals(1150, m.size());
                    for (long k = 100; k < 1250; k++) {
                        assertEquals(k, m.get(k), "key " + k);
                    }
                }
            }
        }
    }

    @Test
    void reopened_withAFileMadeAheadButUnused_addsItEmpty_andKeepsEveryKeyInOneGeneration() throws Exception {
        int n = (int) (FIRST * GrowingMap.PREPARE_AT) + 10;
        try (GrowingMap<Long, Long> m = open()) {
            for (long k = 0; k < n; k++) {
                m.put(k, k);
            }
            awaitFile(dir.resolve("m-1.cm"));
        }
        try (GrowingMap<Long, Long> m = open()) {
            assertEquals(2, m.generationCount());
            assertEquals(n, m.size());
            for (long k = 0; k < n; k++) {
                m.put(k, -k); // each key is updated where it lives: no second copy in the new generation
            }
            assertEquals(n, m.size());
            m.put(10_000L, 1L);
            assertEquals(n + 1, m.size());
            for (long k = 0; k < n; k++) {
                assertEquals(-k, m.get(k));
            }
        }
    }

    @Test
    void aPreparationCutShort_leavesAFileThatTheNextOpenDeletes() throws Exception {
        try (GrowingMap<Long, Long> m = open()) {
            m.put(1L, 1L);
        }
        Path torn = dir.resolve("m-1.cm.preparing");
        Files.write(torn, new byte[] {1, 2, 3}); // a kill while Chronicle was writing it
        try (GrowingMap<Long, Long> m = open()) {
            assertFalse(Files.exists(torn));
            assertEquals(1, m.generationCount());
            assertEquals(1L, m.get(1L));
        }
    }

    @Test
    void concurrentWriters_acrossSeveralGenerations_keepEveryKeyOnce() throws Exception {
        int writers = 4;
        int perWriter = 4000; // 16,000 keys: generations of 1,000, 2,000, 4,000, 8,000 and 16,000
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        try (GrowingMap<Long, Long> m = open()) {
            List<Future<?>> done = new ArrayList<>();
            for (int w = 0; w < writers; w++) {
                long base = w * (long) perWriter;
                done.add(pool.submit(() -> {
                    for (long k = base; k < base + perWriter; k++) {
                        m.put(k, k + 1);
                        if (k % 3 == 0) {
                            m.put(k, k + 2); // an update of a key that may sit in an older generation
                        }
                    }
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
            assertEquals(writers * (long) perWriter, m.size());
            assertTrue(m.generationCount() >= 4, "generations: " + m.generationCount());
            for (long k = 0; k < writers * (long) perWriter; k++) {
                assertEquals(k % 3 == 0 ? k + 2 : k + 1, m.get(k), "key " + k);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void olderGenerations_getKeyFilters_andEveryKeyIsStillFoundUpdatedAndRemovedWhereItLives() throws Exception {
        int n = 10_000; // generations of 1,000, 2,000, 4,000 and 8,000
        try (GrowingMap<Long, Long> m = open()) {
            for (long k = 0; k < n; k++) {
                m.put(k, k);
            }
            m.awaitFilters();
            int generations = m.generationCount();
            assertEquals(4, generations);
            for (int g = 0; g < generations - 1; g++) {
                assertTrue(m.filtered(g), "generation " + g + " is older: filtered");
            }
            assertFalse(m.filtered(generations - 1), "the newest takes new keys: no filter");
            for (long k = 0; k < n; k++) {
                assertEquals(k, m.put(k, -k), "key " + k + " updated where it lives");
            }
            assertEquals(n, m.size());
            for (long k = 0; k < n; k += 2) {
                assertEquals(-k, m.remove(k));
            }
            for (long k = 0; k < n; k++) {
                assertEquals(k % 2 == 0 ? null : -k, m.get(k), "key " + k);
                assertEquals(k % 2 == 0 ? null : -k + 1, m.compute(k, (key, v) -> v == null ? null : v + 1));
            }
            assertEquals(n / 2, m.size());
            for (long k = n; k < n + 500; k++) {
                assertEquals(null, m.get(k));
                m.put(k, k);
            }
            assertEquals(n / 2 + 500, m.size());
        }
        try (GrowingMap<Long, Long> m = open()) {
            m.awaitFilters();
            for (int g = 0; g < m.generationCount() - 1; g++) {
                assertTrue(m.filtered(g), "reopened: generation " + g + " filtered");
            }
            for (long k = 1; k < n; k += 2) {
                assertEquals(-k + 1, m.put(k, k), "key " + k);
            }
            assertEquals(n / 2 + 500, m.size());
        }
    }

    @Test
    void concurrentWriters_updatingKeysOfOlderGenerations_whileTheirFiltersAreBuilt_keepEveryKeyOnce() throws Exception {
        int writers = 4;
        int perWriter = 8000; // 32,000 keys: five generations, each filtered while the writers go on
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        try (GrowingMap<Long, Long> m = open()) {
            List<Future<?>> done = new ArrayList<>();
            for (int w = 0; w < writers; w++) {
                long base = w * (long) perWriter;
                long seed = w;
                done.add(pool.submit(() -> {
                    java.util.SplittableRandom rnd = new java.util.SplittableRandom(seed);
                    for (long k = base; k < base + perWriter; k++) {
                        m.put(k, k);
                        long earlier = base + rnd.nextLong(k - base + 1); // often in an older generation by now
                        m.put(earlier, earlier);
                    }
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
            m.awaitFilters();
            assertEquals(writers * (long) perWriter, m.size());
            for (long k = 0; k < writers * (long) perWriter; k++) {
                assertEquals(k, m.put(k, k + 1), "key " + k);
            }
            assertEquals(writers * (long) perWriter, m.size(), "every update found its key: no second copy in the newest generation");
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void keysRemovedAndAddedAtASteadyCount_pastTheFirstGenerations_reuseTheirRoom_insteadOfAddingGenerations() throws Exception {
        // Generations of 100, 200 and 400 entries hold 600 keys; then 30 rounds each remove the
        // 300 oldest keys and add 300 new: 9,000 keys added in all, at most 600 held.
        GrowingMap.Sizes sizes = new GrowingMap.Sizes(100, 200);
        java.util.Map<Long, Long> expected = new java.util.HashMap<>();
        long next = 0;
        try (GrowingMap<Long, Long> m = new GrowingMap<>(dir, "c", sizes, n -> ChronicleMap.of(Long.class, Long.class).entries(n), false)) {
            for (; next < 600; next++) {
                m.put(next, next * 3);
                expected.put(next, next * 3);
            }
            m.awaitFilters(); // older generations take new keys once their filters are built
            assertEquals(3, m.generationCount());
            long oldest = 0;
            for (int round = 0; round < 30; round++) {
                for (long k = oldest; k < oldest + 300; k++) {
                    assertEquals(k * 3, m.remove(k), "key " + k);
                    expected.remove(k);
                }
                oldest += 300;
                for (long end = next + 300; next < end; next++) {
                    if (next % 2 == 0) {
                        assertEquals(null, m.put(next, next * 3));
                    } else {
                        assertEquals(next * 3, m.compute(next, (k, v) -> v == null ? k * 3 : v + 1));
                    }
                    expected.put(next, next * 3);
                }
                assertEquals(3, m.generationCount(), "round " + round + ": room removals left is used before a new generation");
                assertEquals(600, m.size());
            }
            assertFalse(m.nextMadeAhead(), "older generations have room: no file made ahead");
            for (long k = 0; k < next + 100; k++) {
                assertEquals(expected.get(k), m.get(k), "key " + k);
            }
            m.awaitFilters();
            for (int g = 0; g < 2; g++) {
                assertTrue(m.filterOf(g).fill() < 0.6, "generation " + g + "'s filter, built again as keys came and went: "
                        + m.filterOf(g).fill());
            }
        }
        try (GrowingMap<Long, Long> m = new GrowingMap<>(dir, "c", sizes, n -> ChronicleMap.of(Long.class, Long.class).entries(n), false)) {
            assertEquals(3, m.generationCount());
            m.awaitFilters();
            for (long k = 0; k < next + 100; k++) {
                assertEquals(expected.get(k), m.get(k), "reopened: key " + k);
            }
            for (long k = next - 600; k < next; k++) {
                assertEquals(k * 3, m.put(k, -k), "reopened: key " + k + " updated where it lives");
            }
            assertEquals(600, m.size());
            for (long k = next; k < next + 100; k++) { // the three generations' last room (700 entries)
                m.put(k, k);
            }
            assertEquals(3, m.generationCount());
            for (long k = next + 100; k < next + 150; k++) { // past it: a fourth generation
                m.put(k, k);
            }
            assertEquals(4, m.generationCount());
            assertEquals(750, m.size());
        }
    }

    @Test
    void concurrentWriters_removingAndAddingKeys_intoOlderGenerationsWhileTheirFiltersAreBuiltAgain_keepEveryKeyFindable() throws Exception {
        // Four writers each hold 1,000 keys in generations of 1,000, 1,000 and 2,000 entries, which
        // they fill, and replace them 40 times over (160,000 keys added in all, each into the room
        // a removal left, most often in an older generation); a reader checks meanwhile that every
        // key a writer reported as added is found until that writer removes it.
        int writers = 4;
        int held = 1000;
        ExecutorService pool = Executors.newFixedThreadPool(writers + 1);
        try (GrowingMap<Long, Long> m = new GrowingMap<>(dir, "m", new GrowingMap.Sizes(1000, 1000),
                n -> ChronicleMap.of(Long.class, Long.class).entries(n), false)) {
            for (long k = 0; k < writers * (long) held; k++) {
                m.put(k, k);
            }
            m.awaitFilters();
            int generations = m.generationCount();
            assertEquals(3, generations);
            java.util.concurrent.atomic.AtomicLongArray lowest = new java.util.concurrent.atomic.AtomicLongArray(writers);
            java.util.concurrent.atomic.AtomicLongArray added = new java.util.concurrent.atomic.AtomicLongArray(writers);
            for (int w = 0; w < writers; w++) {
                lowest.set(w, w * (long) held);
                added.set(w, w * (long) held + held);
            }
            java.util.concurrent.atomic.AtomicBoolean writing = new java.util.concurrent.atomic.AtomicBoolean(true);
            // Writer w's keys are w*held + i*stride for i in [lowest, added): the same residue class
            // modulo the stride for all its keys, so writers never share a key.
            long stride = writers * (long) held;
            List<Future<?>> done = new ArrayList<>();
            for (int w = 0; w < writers; w++) {
                int writer = w;
                done.add(pool.submit(() -> {
                    long first = writer * (long) held;
                    for (int round = 0; round < 40; round++) {
                        for (int i = 0; i < held; i++) {
                            long old = lowest.get(writer);
                            long k = key(old, first, held, stride);
                            assertEquals(k, m.remove(k), "writer " + writer + " key " + k);
                            lowest.set(writer, old + 1);
                            long fresh = added.get(writer);
                            long f = key(fresh, first, held, stride);
                            m.put(f, f);
                            added.set(writer, fresh + 1);
                        }
                    }
                    return null;
                }));
            }
            Future<Long> reader = pool.submit(() -> {
                java.util.SplittableRandom rnd = new java.util.SplittableRandom(3);
                long checks = 0;
                while (writing.get()) {
                    int w = rnd.nextInt(writers);
                    long from = lowest.get(w);
                    long to = added.get(w);
                    long i = to - 1 - rnd.nextLong(Math.max(1, (to - from) / 2)); // added, not due for removal soon
                    long k = key(i, w * (long) held, held, stride);
                    Long v = m.get(k);
                    if (v == null && i >= lowest.get(w)) {
                        throw new AssertionError("writer " + w + "'s key " + k + " was added and not removed, yet not found");
                    }
                    checks++;
                }
                return checks;
            });
            for (Future<?> f : done) {
                f.get();
            }
            writing.set(false);
            assertTrue(reader.get() > 0);
            assertEquals(writers * (long) held, m.size());
            assertEquals(generations, m.generationCount(), "the keys held never outgrew the generations");
            for (int w = 0; w < writers; w++) {
                for (long i = lowest.get(w); i < added.get(w); i++) {
                    long k = key(i, w * (long) held, held, stride);
                    assertEquals(k, m.put(k, k + 1), "key " + k + " updated where it lives: found, not put again");
                }
            }
            assertEquals(writers * (long) held, m.size());
        } finally {
            pool.shutdownNow();
        }
    }

    /** Writer key number i: the first {@code held} are {@code first + i}, later ones spread over strides above them. */
    private static long key(long i, long first, int held, long stride) {
        long base = i - first;
        return base < held ? first + base : first + (base / held) * stride + base % held;
    }

    /** Waits (up to 30 s) for the background thread to give the file its name. */
    private static void awaitFile(Path file) throws InterruptedException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (!Files.exists(file)) {
            assertTrue(System.nanoTime() < deadline, file + " was not made within 30 s");
            Thread.sleep(10);
        }
    }
}
