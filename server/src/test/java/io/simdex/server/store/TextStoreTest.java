package io.simdex.server.store;

import io.simdex.core.text.MinHashSketch;
import net.openhft.chronicle.map.ChronicleMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TextStoreTest {
    @TempDir
    Path dir;

    @Test
    void pack_sketchOfFourBinGroups_roundTripsInThreeBytesPerGroup() {
        Random rnd = new Random(3);
        for (int bins : new int[]{4, 8, 60, 128}) {
            String sketch = sketch(rnd, bins);
            byte[] packed = PackedSketch.pack(sketch);
            assertEquals(bins / 4 * 3, packed.length);
            assertEquals(sketch, PackedSketch.unpack(packed));
        }
        assertEquals(45, PackedSketch.pack(sketch(rnd, 60)).length, "the default sketch");
        assertEquals("\u0000" + "0".repeat(60), PackedSketch.unpack(PackedSketch.pack("\u0000" + "0".repeat(60))));
        assertEquals("\u0000" + "o".repeat(60), PackedSketch.unpack(PackedSketch.pack("\u0000" + "o".repeat(60))), "value 63");
    }

    @Test
    void pack_anythingButASketchOfFourBinGroups_isNull() {
        assertNull(PackedSketch.pack("a short text"));
        assertNull(PackedSketch.pack(""));
        assertNull(PackedSketch.pack("\u0000"), "no bins");
        assertNull(PackedSketch.pack("\u0000" + "0".repeat(59)), "bins not a multiple of 4");
        assertNull(PackedSketch.pack("\u0000" + "0".repeat(59) + "p"), "a value of 64");
        assertNull(PackedSketch.pack("\u0000" + "0".repeat(59) + "/"), "below '0'");
        assertNull(PackedSketch.pack("x" + "0".repeat(60)), "no mark");
    }

    @Test
    void sketchesAndTexts_readAsOneMap_putMovesAnIdBetweenFiles_andSurviveAnUncleanReopen() {
        Map<String, String> expected = new HashMap<>();
        Random rnd = new Random(5);
        try (TextStore store = open(true)) {
            for (int i = 0; i < 3_000; i++) {
                String v = i % 3 == 0 ? "short text " + i : sketch(rnd, 60);
                store.put("id-" + i, v);
                expected.put("id-" + i, v);
            }
            store.put("id-3", sketch(rnd, 60));
            store.put("id-4", "now a text");
            store.put("id-7", "\u0000" + "0".repeat(59) + "p");
            for (String id : new String[]{"id-3", "id-4", "id-7"}) {
                expected.put(id, store.get(id));
            }
            assertTrue(expected.get("id-3").startsWith("\u0000") && expected.get("id-4").equals("now a text"));
            store.remove("id-5");
            store.remove("id-6");
            expected.remove("id-5");
            expected.remove("id-6");
            assertSame(expected, store);
        }
        // Reopened without a clean close, as after kill -9: recovered, and the same.
        try (TextStore store = open(false)) {
            assertSame(expected, store);
            long dropped = store.removeIf((id, v) -> id.endsWith("1"));
            long expectedDropped = expected.keySet().stream().filter(id -> id.endsWith("1")).count();
            expected.keySet().removeIf(id -> id.endsWith("1"));
            assertEquals(expectedDropped, dropped);
            assertSame(expected, store);
        }
    }

    @Test
    void sketchStoredBeforeThePackedFile_staysReadable_andIsPackedWhenRewritten() {
        String old = sketch(new Random(9), 60);
        try (GrowingMap<String, String> texts = new GrowingMap<>(dir, "texts", 1024, n -> ChronicleMap.of(String.class, String.class)
                .entries(n).averageKey("x".repeat(8)).averageValue("x".repeat(120)).maxBloatFactor(2.0), true)) {
            texts.put("old", old);
        }
        try (TextStore store = open(true)) {
            assertEquals(old, store.get("old"));
            store.put("old", old);
            assertEquals(old, store.get("old"));
            assertEquals(1, store.size(), "in one file only");
        }
        assertTrue(Files.exists(dir.resolve("sketches-0.cm")));
    }

    @Test
    void sketchFile_sizedForItsDocuments_takesUnder90BytesASketch() throws IOException {
        int n = 20_000;
        Random rnd = new Random(11);
        try (TextStore store = new TextStore(dir, GrowingMap.Sizes.doubling(n), 8, true)) {
            for (int i = 0; i < n; i++) {
                store.put(String.format("%08d", i), sketch(rnd, 60));
            }
            assertEquals(n, store.size());
        }
        long bytes = Files.size(dir.resolve("sketches-0.cm"));
        assertTrue(bytes < 90L * n, bytes / n + " bytes a sketch");
        assertArrayEquals(new Object[0], Files.list(dir).filter(p -> p.getFileName().toString().startsWith("texts")).toArray(),
                "no text file for sketches");
    }

    @Test
    void fingerprintSketch_packsFiveBitsABin_roundTrips_andOtherFormsAreNull() {
        Random rnd = new Random(13);
        String kept = sketch(rnd, 60, 32);
        byte[] packed = FingerprintSketch.pack(kept);
        assertEquals(38, packed.length);
        assertEquals(kept, FingerprintSketch.unpack(packed));
        assertEquals("\u0000" + "O".repeat(60), FingerprintSketch.unpack(FingerprintSketch.pack("\u0000" + "O".repeat(60))), "value 31");
        MinHashSketch six = MinHashSketch.of("the sketch of a text", 3, 60, 6);
        assertArrayEquals(FingerprintSketch.pack("\u0000" + six.lowBits(5)), FingerprintSketch.pack(six), "a sketch's low 5 bits");
        assertNull(FingerprintSketch.pack("\u0000" + "0".repeat(59) + "P"), "a value of 32");
        assertNull(FingerprintSketch.pack("\u0000" + "0".repeat(59)), "59 bins");
        assertNull(FingerprintSketch.pack("x" + "0".repeat(60)), "no mark");
        for (long fp : new long[]{0, 1, -1, Long.MIN_VALUE, 0x0123_4567_89ab_cdefL}) {
            String key = FingerprintSketch.key(fp);
            assertTrue(FingerprintSketch.isKey(key), key);
            assertEquals(fp, FingerprintSketch.fingerprintOf(key));
        }
        assertFalse(FingerprintSketch.isKey("0123456789abcdef0"), "an id of 17 characters");
        assertFalse(FingerprintSketch.isKey("\u0002" + "0123456789abcdeg"), "not hex");
        assertFalse(FingerprintSketch.isKey("\u0002" + "0123456789ABCDEF"), "upper case");
        assertFalse(FingerprintSketch.isKey("\u0002" + "0123456789abcde"), "15 digits");
    }

    @Test
    void equalBins_countsBinsWhoseFiveBitsAgree_asBinByBin() {
        Random rnd = new Random(23);
        for (int i = 0; i < 2_000; i++) {
            String a = sketch(rnd, 60, 32);
            StringBuilder b = new StringBuilder(a);
            for (int k = rnd.nextInt(61); k > 0; k--) {
                b.setCharAt(1 + rnd.nextInt(60), (char) ('0' + rnd.nextInt(32)));
            }
            int expected = 0;
            for (int bin = 1; bin <= 60; bin++) {
                expected += a.charAt(bin) == b.charAt(bin) ? 1 : 0;
            }
            assertEquals(expected, FingerprintSketch.equalBins(FingerprintSketch.pack(a), FingerprintSketch.pack(b.toString())));
        }
        assertEquals(60, FingerprintSketch.equalBins(FingerprintSketch.pack("\u0000" + "O".repeat(60)), FingerprintSketch.pack("\u0000" + "O".repeat(60))));
        assertEquals(0, FingerprintSketch.equalBins(FingerprintSketch.pack("\u0000" + "O".repeat(60)), FingerprintSketch.pack("\u0000" + "0".repeat(60))));
    }

    @Test
    void sketchesByFingerprint_readAsTheStoreOfTheirKeys_otherFormsKeptAsTexts_andSurviveAnUncleanReopen() {
        Map<String, String> expected = new HashMap<>();
        Random rnd = new Random(17);
        try (TextStore store = open(true)) {
            for (int i = 0; i < 2_000; i++) {
                String key = FingerprintSketch.key(rnd.nextLong());
                String v = i % 5 == 0 ? sketch(rnd, 60) : sketch(rnd, 60, 32); // 6-bit values do not pack in 5
                store.put(key, v);
                expected.put(key, v);
                store.put("id-" + i, "short text " + i);
                expected.put("id-" + i, "short text " + i);
            }
            String key = expected.keySet().stream().filter(FingerprintSketch::isKey).sorted().findFirst().orElseThrow();
            store.remove(key);
            expected.remove(key);
            assertSame(expected, store);
        }
        try (TextStore store = open(false)) {
            assertSame(expected, store);
        }
        assertTrue(Files.exists(dir.resolve("fpsketches-0.cm")));
    }

    @Test
    void fingerprintSketchFile_sizedForItsDocuments_withoutEntryChecksums_takesAtMost60BytesASketch() throws IOException {
        int n = 20_000;
        Random rnd = new Random(19);
        try (TextStore store = new TextStore(dir, GrowingMap.Sizes.doubling(n), 36, true)) {
            for (int i = 0; i < n; i++) {
                store.put(FingerprintSketch.key(rnd.nextLong()), sketch(rnd, 60, 32));
            }
            assertEquals(n, store.size());
        }
        long bytes = Files.size(dir.resolve("fpsketches-0.cm"));
        assertTrue(bytes <= 60L * n, bytes / n + " bytes a sketch (61 with entry checksums)");
    }

    private TextStore open(boolean clean) {
        return new TextStore(dir, GrowingMap.Sizes.doubling(4096), 8, clean);
    }

    private static void assertSame(Map<String, String> expected, TextStore store) {
        for (Map.Entry<String, String> e : expected.entrySet()) {
            assertEquals(e.getValue(), store.get(e.getKey()), e.getKey());
        }
        Map<String, String> listed = new HashMap<>();
        store.forEach(listed::put);
        assertEquals(expected, listed);
        assertEquals(expected.size(), store.size());
    }

    /** A stored sketch: the mark, then {@code bins} values '0'..'o'. */
    private static String sketch(Random rnd, int bins) {
        return sketch(rnd, bins, 64);
    }

    /** A stored sketch of values below {@code values}. */
    private static String sketch(Random rnd, int bins, int values) {
        StringBuilder b = new StringBuilder("\u0000");
        for (int i = 0; i < bins; i++) {
            b.append((char) ('0' + rnd.nextInt(values)));
        }
        return b.toString();
    }
}
