package io.simdex.server.store;

import net.openhft.chronicle.map.ChronicleMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;
import java.util.function.IntFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DocMapsTest {
    @TempDir
    Path dir;

    @Test
    void growingMap_manyTimesItsSize_addsGenerationsAndKeepsEveryKeyOnce() {
        int n = 20_000;
        try (GrowingMap<Long, Long> map = new GrowingMap<>(dir, "t", 500,
                e -> ChronicleMap.of(Long.class, Long.class).entries(e).maxBloatFactor(2.0), true)) {
            for (long i = 0; i < n; i++) {
                assertNull(map.put(i, i * 3));
            }
            assertEquals(6, map.generationCount(), "500 + 1000 + 2000 + 4000 + 8000 hold 15500; the 6th (16000) the rest");
            assertEquals(n, map.size());
            for (long i = 0; i < n; i += 2) {
                assertEquals(i * 3, map.put(i, i * 5), "an existing key is updated where it lives");
            }
            assertEquals(n, map.size(), "updates add no copies");
            for (long i = 0; i < n; i += 3) {
                assertEquals(i % 2 == 0 ? i * 5 : i * 3, map.remove(i));
            }
        }
        try (GrowingMap<Long, Long> map = new GrowingMap<>(dir, "t", 500,
                e -> ChronicleMap.of(Long.class, Long.class).entries(e).maxBloatFactor(2.0), true)) {
            for (long i = 0; i < n; i++) {
                Long expected = i % 3 == 0 ? null : (i % 2 == 0 ? i * 5 : i * 3);
                assertEquals(expected, map.get(i), "key " + i);
            }
        }
    }

    @Test
    void growingMap_keysFarAboveTheAverageSize_fillAGenerationByBytes_nextGenerationTakesThem() {
        // Sized for 1,024 keys of 8 bytes: 600 keys of 256 bytes spend its segment tiers long before its entries.
        int n = 600;
        String big = "k".repeat(250);
        try (GrowingMap<String, Long> map = new GrowingMap<>(dir, "b", 1024,
                e -> ChronicleMap.of(String.class, Long.class).entries(e).averageKey("12345678").maxBloatFactor(2.0), true)) {
            for (int i = 0; i < n; i++) {
                String key = big + String.format("%06d", i);
                long value = i;
                assertEquals(i % 2 == 0 ? null : value, i % 2 == 0 ? map.put(key, value) : map.compute(key, (k, v) -> v == null ? value : v + 1));
            }
            assertTrue(map.generationCount() > 1, "the first generation filled by bytes, a new one took the rest");
            assertEquals(n, map.size(), "every key once");
            for (int i = 0; i < n; i++) {
                assertEquals((long) i, map.get(big + String.format("%06d", i)), "key " + i);
            }
        }
    }

    @Test
    void growingMap_smallFirstFile_thenSecondSizedForTheExpectedLoad_keepsEveryKeyAcrossReopen() {
        GrowingMap.Sizes sizes = new GrowingMap.Sizes(100, 1000);
        int n = 5000;
        try (GrowingMap<Long, Long> map = new GrowingMap<>(dir, "s", sizes,
                e -> ChronicleMap.of(Long.class, Long.class).entries(e).maxBloatFactor(2.0), true)) {
            for (long i = 0; i < n; i++) {
                assertNull(map.put(i, i * 3));
            }
            assertEquals(4, map.generationCount(), "100 + 1000 + 2000 hold 3100; the 4th (4000) the rest");
            for (long i = 0; i < n; i += 3) {
                assertEquals(i * 3, map.remove(i));
            }
        }
        try (GrowingMap<Long, Long> map = new GrowingMap<>(dir, "s", sizes,
                e -> ChronicleMap.of(Long.class, Long.class).entries(e).maxBloatFactor(2.0), false)) {
            for (long i = 0; i < n; i++) {
                assertEquals(i % 3 == 0 ? null : i * 3, map.get(i), "key " + i);
            }
            assertEquals(n - (n + 2) / 3, map.size());
        }
    }

    @Test
    void growingMap_onFirstWrite_noFileUntilAWrite_thenAsAnyOther() {
        Path file = dir.resolve("lazy-0.cm");
        try (GrowingMap<Long, Long> map = GrowingMap.onFirstWrite(dir, "lazy", 500,
                e -> ChronicleMap.of(Long.class, Long.class).entries(e).maxBloatFactor(2.0), true)) {
            assertNull(map.get(1L));
            assertNull(map.remove(1L));
            assertEquals(0, map.removeIf((k, v) -> true));
            assertEquals(0, map.size());
            map.forEach((k, v) -> org.junit.jupiter.api.Assertions.fail("no entries yet"));
            assertFalse(Files.exists(file), "reads and removes create nothing");
            assertEquals(0, map.generationCount());

            assertNull(map.compute(1L, (k, v) -> null), "a compute that stores nothing creates nothing");
            assertFalse(Files.exists(file));
            assertEquals(7L, map.compute(1L, (k, v) -> v == null ? 7L : v + 1));
            assertTrue(Files.exists(file));
            for (long i = 2; i < 1200; i++) {
                assertNull(map.put(i, i));
            }
            assertEquals(2, map.generationCount(), "grows as any other from there");
            assertEquals(1199, map.size());
        }
        try (GrowingMap<Long, Long> map = GrowingMap.onFirstWrite(dir, "lazy", 500,
                e -> ChronicleMap.of(Long.class, Long.class).entries(e).maxBloatFactor(2.0), true)) {
            assertEquals(7L, map.get(1L), "an existing file is opened at once");
            assertEquals(1199, map.size());
        }
    }

    @Test
    void attachDetach_sharedFingerprint_tracksIdsAndEmptiness() {
        try (DocMaps docs = new DocMaps(dir, 1000, 8, true)) {
            assertTrue(docs.attach(7L, "a"));
            assertFalse(docs.attach(7L, "b"));
            assertFalse(docs.attach(7L, "ab"));
            assertFalse(docs.attach(7L, "b"), "attaching twice is a no-op");
            assertArrayEquals(new String[]{"a", "b", "ab"}, docs.ids(7L));
            assertFalse(docs.detach(7L, "b"));
            assertArrayEquals(new String[]{"a", "ab"}, docs.ids(7L));
            assertFalse(docs.detach(7L, "a"));
            assertArrayEquals(new String[]{"ab"}, docs.ids(7L));
            assertFalse(docs.detach(7L, "zz"), "an unknown id changes nothing");
            assertTrue(docs.detach(7L, "ab"));
            assertEquals(0, docs.ids(7L).length);
            assertTrue(docs.detach(8L, "x"), "an absent fingerprint has no ids");
        }
    }

    @Test
    void ids_asciiNonAsciiAndLong_readBackAsAttached() {
        String chinese = "新闻-2026/11/23-头条";
        String astral = "post-\uD83D\uDE00-\uD834\uDD1E"; // surrogate pairs: emoji, musical G clef
        String latin1 = "caf\u00e9";
        String longId = "u".repeat(5000);
        try (DocMaps docs = new DocMaps(dir, 1000, 8, true)) {
            docs.attach(1L, "d1234567");
            docs.attach(2L, chinese);
            docs.attach(3L, astral);
            docs.attach(4L, latin1);
            docs.attach(5L, longId);
            docs.attach(6L, "plain");
            docs.attach(6L, chinese);
            assertArrayEquals(new String[]{"d1234567"}, docs.ids(1L));
            assertArrayEquals(new String[]{chinese}, docs.ids(2L));
            assertArrayEquals(new String[]{astral}, docs.ids(3L));
            assertArrayEquals(new String[]{latin1}, docs.ids(4L));
            assertArrayEquals(new String[]{longId}, docs.ids(5L));
            assertArrayEquals(new String[]{"plain", chinese}, docs.ids(6L));
            assertEquals(0, docs.ids(7L).length);
        }
    }

    @Test
    void laterGenerations_sizedForTheIdsSeen_shortIdsTakeSmallerFiles() throws Exception {
        long shortFile = secondIdsFile(dir.resolve("short"), i -> "d" + i);
        long longFile = secondIdsFile(dir.resolve("long"), i -> "document-" + (100_000_000_000_000L + i));
        // 2-5 byte ids against 24-byte ones, in maps whose first generation was sized for 24
        assertTrue(shortFile < 0.75 * longFile, "second generation " + shortFile + " bytes for short ids, " + longFile + " for long ones");
    }

    @Test
    void generationsForShortIds_allocateInFiveByteChunks_withoutEntryChecksums() throws Exception {
        // Chronicle Map's own unit for ids up to 18 bytes is 4 bytes: IdSizes.CHUNK_BYTES says why not
        Path store = dir.resolve("short");
        secondIdsFile(store, i -> "d" + i);
        for (String file : new String[]{"ids-0.cm", "fps-0.cm", "ids-1.cm", "fps-1.cm"}) {
            assertEquals(IdSizes.CHUNK_BYTES, headerNumber(store.resolve(file), "chunkSize"), file);
            assertTrue(header(store.resolve(file)).contains("checksumEntries: false"), file);
        }
    }

    /**
     * A full first generation of 16-byte ids, 5,000 a segment: each map's file takes at most 36 B
     * an entry (25 of it the entry's five chunks; 34.7 measured). In 8-byte chunks with entry
     * checksums each took 42.0, and laid out by Chronicle Map itself 47.9 ({@link IdEntrySegments}).
     */
    @Test
    void fullGenerationOfSixteenByteIds_takesAtMost36BytesAnEntryInEachMap() throws Exception {
        int n = 19_500;
        try (DocMaps docs = new DocMaps(dir, new GrowingMap.Sizes(20_000, 40_000), new IdSizes(16), true)) {
            for (int i = 0; i < n; i++) {
                String id = String.format("doc-%012d", i);
                docs.bind(id, i * 0x9E3779B97F4A7C15L);
                docs.attach(i * 0x9E3779B97F4A7C15L, id);
            }
            assertEquals(n, docs.documents());
            assertEquals(n, docs.fingerprints());
        }
        for (String file : new String[]{"ids-0.cm", "fps-0.cm"}) {
            double perEntry = Files.size(dir.resolve(file)) / (double) n;
            assertTrue(perEntry <= 36, file + ": " + perEntry + " B an entry");
        }
        assertFalse(Files.exists(dir.resolve("ids-1.cm")), "a second generation of ids");
    }

    /**
     * A generation made once the ids seen are known is laid out by {@link IdEntrySegments} for
     * ids of the guess or shorter (30,000 entries: 6 segments of 5,000, each with chunks for
     * 5% over 5,000 entries of five chunks), and by Chronicle Map itself for longer ones, which
     * would overflow those segments' tiers (see there).
     */
    @Test
    void laterGenerations_inSegmentsOf5400_unlessIdsAreLongerThanTheGuess() throws Exception {
        Path shortIds = dir.resolve("short");
        Path longIds = dir.resolve("long");
        fill(shortIds, i -> String.format("doc-%012d", i));
        fill(longIds, i -> "https://example.com/some/path/to/a/page/with/a/long/address/" + (1_000_000 + i));
        for (String file : new String[]{"ids-1.cm", "fps-1.cm"}) {
            assertEquals(6, headerNumber(shortIds.resolve(file), "actualSegments"), file);
            assertEquals(26_250, headerNumber(shortIds.resolve(file), "actualChunksPerSegmentTier"), file);
            long longTier = headerNumber(longIds.resolve(file), "actualChunksPerSegmentTier");
            long longSegments = headerNumber(longIds.resolve(file), "actualSegments");
            assertTrue(longSegments != 6 || longTier != 36_750, file + ": " + longSegments + " segments of " + longTier + " chunks");
        }
    }

    /**
     * A generation laid out for ids of 1-2 bytes (2 chunks an entry) that then takes 71-byte
     * ones (11 chunks) runs out of segment room long before its entries: its segments take extra
     * tiers up to the bloat factor, then it counts as full and the next generation takes the
     * rest. Every id stays bound and attached.
     */
    @Test
    void idsGrowingLongerThanTheLayout_fillGenerationsByBytes_everyIdKept() {
        IntFunction<String> id = i -> i < 1000 ? Integer.toString(i, 36)
                : String.format("https://example.com/a/path/that/makes/the/id/seventy/bytes/long/%07d", i);
        int n = 20_000;
        try (DocMaps docs = new DocMaps(dir, new GrowingMap.Sizes(1024, 20_000), new IdSizes(24), true)) {
            for (int i = 0; i < n; i++) {
                assertEquals(OptionalLong.empty(), docs.bind(id.apply(i), i), id.apply(i));
                assertTrue(docs.attach(i, id.apply(i)), id.apply(i));
            }
            assertEquals(n, docs.documents());
            for (int i = 0; i < n; i++) {
                assertEquals(OptionalLong.of(i), docs.fingerprintOf(id.apply(i)), id.apply(i));
                assertArrayEquals(new String[]{id.apply(i)}, docs.ids(i), id.apply(i));
            }
        }
        // 1,024 + 20,000 entries would hold them all: the second generation was full by bytes
        assertTrue(Files.exists(dir.resolve("ids-2.cm")), "no third generation of ids");
    }

    /** Binds and attaches 2,000 ids, so that a second generation of 30,000 is made. */
    private static void fill(Path store, IntFunction<String> id) throws IOException {
        Files.createDirectories(store);
        try (DocMaps docs = new DocMaps(store, new GrowingMap.Sizes(1024, 30_000), new IdSizes(24), true)) {
            for (int i = 0; i < 2000; i++) {
                docs.bind(id.apply(i), i);
                docs.attach(i, id.apply(i));
            }
        }
    }

    /** A number from the description at the start of a Chronicle Map file. */
    private static long headerNumber(Path file, String key) throws IOException {
        Matcher m = Pattern.compile(key + ": (\\d+)").matcher(header(file));
        assertTrue(m.find(), "no " + key + " in the header of " + file);
        return Long.parseLong(m.group(1));
    }

    /** The start of a map file: Chronicle Map's header, its settings as text. */
    private static String header(Path file) throws IOException {
        byte[] head = new byte[4096];
        try (InputStream in = Files.newInputStream(file)) {
            in.readNBytes(head, 0, head.length);
        }
        return new String(head, StandardCharsets.ISO_8859_1);
    }

    /** Binds and attaches 3,000 ids, so that a second generation of 4,000 is made; its file's size. */
    private static long secondIdsFile(Path store, IntFunction<String> id) throws Exception {
        Files.createDirectories(store);
        try (DocMaps docs = new DocMaps(store, new GrowingMap.Sizes(1024, 4000), new IdSizes(24), true)) {
            for (int i = 0; i < 3000; i++) {
                assertEquals(OptionalLong.empty(), docs.bind(id.apply(i), i));
                assertTrue(docs.attach(i, id.apply(i)));
            }
            for (int i = 0; i < 3000; i++) {
                assertEquals(OptionalLong.of(i), docs.fingerprintOf(id.apply(i)));
                assertArrayEquals(new String[]{id.apply(i)}, docs.ids(i));
            }
        }
        return Files.size(store.resolve("ids-1.cm"));
    }

    @Test
    void bindUnbind_returnsPrevious() {
        try (DocMaps docs = new DocMaps(dir, 1000, 8, true)) {
            assertEquals(OptionalLong.empty(), docs.bind("x", 1L));
            assertEquals(OptionalLong.of(1L), docs.bind("x", 2L));
            assertEquals(OptionalLong.of(2L), docs.unbind("x"));
            assertEquals(OptionalLong.empty(), docs.unbind("x"));
        }
    }

    @Test
    void indexOf_matchesWholeIdsOnly() {
        assertEquals(-1, FingerprintIds.indexOf("ab\nabc", "bc"));
        assertEquals(3, FingerprintIds.indexOf("ab\nabc", "abc"));
        assertEquals(0, FingerprintIds.indexOf("ab\nabc", "ab"));
        assertEquals(-1, FingerprintIds.indexOf("abc", "ab"));
    }
}
