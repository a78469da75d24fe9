package io.simdex.server.store;

import net.openhft.chronicle.hash.impl.VanillaChronicleHash;
import net.openhft.chronicle.map.ChronicleMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.reflect.Field;
import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Maps opened by MapFiles stay out of Chronicle Map's JVM exit hook, whether their file is new,
 * reopened after a clean close, or recovered: that hook closed maps under the server's running
 * handlers on SIGTERM (EmbeddedProcessIT stops a server during a BulkLoad for the whole effect).
 * A map opened by Chronicle Map's own API is in the hook, which shows this test reads it right.
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
