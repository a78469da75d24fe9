package io.simdex.server.store;

import io.simdex.server.store.ProcessLimits.Readings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A store is not opened within the headroom of the process's memory maps or open files. */
class ProcessLimitsTest {
    @TempDir
    Path dir;

    @Test
    void aStore_isRefusedWithinTheHeadroomOfEitherLimit_namingIt() {
        assertEquals(3_276, ProcessLimits.headroom(65_530), "5% of the default vm.max_map_count");
        assertEquals(2_000, ProcessLimits.headroom(20_000), "at least 2,000");
        assertEquals(250, ProcessLimits.headroom(1_000), "a quarter of a small limit");

        assertNull(ProcessLimits.refusal(new Readings(62_254, 65_530, 100, 1_048_576)), "at the headroom's edge");
        String maps = ProcessLimits.refusal(new Readings(62_255, 65_530, 100, 1_048_576));
        assertTrue(maps.startsWith("the process has 62255 memory maps of its limit of 65530 (vm.max_map_count)"), maps);
        String files = ProcessLimits.refusal(new Readings(100, 65_530, 18_001, 20_000));
        assertTrue(files.startsWith("the process has 18001 files open of its limit of 20000"), files);
        assertNull(ProcessLimits.refusal(new Readings(-1, -1, -1, -1)), "limits not known: nothing checked");
    }

    @Test
    void thisProcess_farFromItsLimits_opensAStore() {
        ProcessLimits.requireRoomForStore(dir);
        try (CollectionStore store = CollectionStore.open(dir.resolve("c"), StoreSizing.forShare(1_000, 1, 8))) {
            assertEquals(0, store.docs().documents());
        }
    }
}
