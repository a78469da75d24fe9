package io.simdex.router.api;

import io.simdex.proto.v1.CollectionSettings;
import io.simdex.server.store.NoRoomException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** A catalog change that cannot be written is not made: the file and what the router answers agree. */
class CatalogTest {
    @TempDir
    Path dir;

    private static final CollectionSettings SETTINGS = CollectionSettingsRules.complete(CollectionSettings.getDefaultInstance());

    @Test
    void create_andRemove_thatTheDiskHasNoRoomFor_changeNothing_untilItHas() throws Exception {
        Path full = Path.of("/dev/full"); // answers every write with ENOSPC, as a full disk does
        assumeTrue(Files.isWritable(full), "no /dev/full here");
        Catalog catalog = new Catalog(dir);
        Path tmp = dir.resolve("collections.json.tmp");

        Files.createSymbolicLink(tmp, full);
        UncheckedIOException e = assertThrows(UncheckedIOException.class, () -> catalog.create("c", SETTINGS));
        assertEquals("the data disk is full: cannot write " + dir.resolve("collections.json") + ": No space left on device",
                NoRoomException.in(e).getMessage());
        assertFalse(catalog.get("c").isPresent(), "created in memory only");
        assertFalse(Files.exists(tmp, java.nio.file.LinkOption.NOFOLLOW_LINKS), "the part written is left behind");

        assertTrue(catalog.create("c", SETTINGS).created(), "a retry once there is room creates it");
        assertTrue(new Catalog(dir).get("c").isPresent());

        Files.createSymbolicLink(tmp, full);
        assertThrows(UncheckedIOException.class, () -> catalog.remove("c"));
        assertTrue(catalog.get("c").isPresent(), "removed in memory only");
        assertTrue(catalog.remove("c"));
        assertFalse(new Catalog(dir).get("c").isPresent());
    }
}
