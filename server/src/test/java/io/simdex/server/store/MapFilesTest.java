package io.simdex.server.store;

import net.openhft.chronicle.hash.impl.VanillaChronicleHash;
import net.openhft.chronicle.map.ChronicleMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.reflect.Field;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Maps opened by MapFiles stay out of Chronicle Map's JVM exit hook, whether their file is new,
 * reopened after a clean close, or recovered: that hook closed maps under the server's running
 * handlers on SIGTERM (EmbeddedProcessIT stops a server during a BulkLoad for the whole effect).
 * A map opened by Chronicle Map's own API is in the hook, which shows this test reads it right.
 * A file cut short is recovered as what is left of it, and said so.
 */
class MapFilesTest {
    @TempDir
    Path dir;

    @Test
    void open_newReopenedAndRecovered_noneInTheExitHook() throws Exception {
        Path file = dir.resolve("m.cm");
        try (ChronicleMap<Long, Long> created = MapFiles.open(builder(), file, true)) {
            created.put(1L, 2L);
            assertFalse(inExitHook(created), "created");
        }
        try (ChronicleMap<Long, Long> reopened = MapFiles.open(builder(), file, true)) {
            assertEquals(2L, reopened.get(1L));
            assertFalse(inExitHook(reopened), "reopened");
        }
        try (ChronicleMap<Long, Long> recovered = MapFiles.open(builder(), file, false)) {
            assertEquals(2L, recovered.get(1L));
            assertFalse(inExitHook(recovered), "recovered");
        }
        try (ChronicleMap<Long, Long> direct = builder().createPersistedTo(file.toFile())) {
            assertTrue(inExitHook(direct), "opened by Chronicle Map's own API");
        }
    }

    @Test
    void cleanMarker_isEmpty_soAFullDiskCanStillCloseAStore() throws Exception {
        MapFiles.putCleanMarker(dir);
        assertEquals(0, Files.size(dir.resolve(MapFiles.CLEAN_MARKER)), "a marker with content needs a block of the disk");
        assertTrue(MapFiles.takeCleanMarker(dir, false));
        assertFalse(MapFiles.takeCleanMarker(dir, false));
    }

    @Test
    void takeCleanMarker_saysOnceWhenAStoreIsRecovered_notWhenFreshOrClean() throws Exception {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream before = System.err;
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8)); // slf4j-simple writes to System.err
        try {
            assertTrue(MapFiles.takeCleanMarker(dir, true), "fresh");
            MapFiles.putCleanMarker(dir);
            assertTrue(MapFiles.takeCleanMarker(dir, false), "closed cleanly");
            assertEquals("", err.toString(StandardCharsets.UTF_8));
            assertFalse(MapFiles.takeCleanMarker(dir, false), "killed since");
        } finally {
            System.setErr(before);
        }
        String log = err.toString(StandardCharsets.UTF_8);
        assertTrue(log.contains(dir + " was not closed cleanly (killed, its machine stopped, or copied while open): recovering its map files"), log);
        assertEquals(1, log.lines().count(), log);
    }

    @Test
    void open_ofAFileCutShort_saysSoLoudly() throws Exception {
        Path file = dir.resolve("cut.cm");
        try (ChronicleMap<Long, Long> m = MapFiles.open(builder(), file, true)) {
            for (long k = 0; k < 1_000; k++) {
                m.put(k, k);
            }
        }
        long whole = Files.size(file);
        try (FileChannel c = FileChannel.open(file, StandardOpenOption.WRITE)) {
            c.truncate(4096); // a disk fault, or a copy that failed
        }
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream before = System.err;
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8)); // slf4j-simple writes to System.err
        try (ChronicleMap<Long, Long> recovered = MapFiles.open(builder(), file, false)) {
            assertTrue(recovered.size() < 1_000, "entries past the cut: " + recovered.size());
        } finally {
            System.setErr(before);
        }
        String logged = err.toString(StandardCharsets.UTF_8);
        assertTrue(logged.contains("ERROR") && logged.contains(file + " was 4096 bytes, its map takes " + whole + ": the file was cut short"),
                logged);
    }

    private static net.openhft.chronicle.map.ChronicleMapBuilder<Long, Long> builder() {
        return ChronicleMap.of(Long.class, Long.class).entries(1_000);
    }

    /** Whether Chronicle Map's exit hook holds {@code map}: its static map keyed by each map's identity. */
    private static boolean inExitHook(ChronicleMap<?, ?> map) throws ReflectiveOperationException {
        Field maps = Class.forName("net.openhft.chronicle.hash.impl.ChronicleHashCloseOnExitHook").getDeclaredField("maps");
        maps.setAccessible(true);
        Field identity = VanillaChronicleHash.class.getDeclaredField("identity");
        identity.setAccessible(true);
        Map<?, ?> hooked = (Map<?, ?>) maps.get(null);
        synchronized (maps.getDeclaringClass()) {
            return hooked.containsKey(identity.get(map));
        }
    }
}
