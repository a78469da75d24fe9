package io.simdex.ops.cluster;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class InSyncStampTest {
    @TempDir
    Path dir;

    @Test
    void written_readBack_vouchesOnlyForTheSameNodeEpochAndBoot() {
        new InSyncStamp("node-2", 7, "boot-a").write(dir);
        InSyncStamp read = InSyncStamp.read(dir);

        assertEquals(new InSyncStamp("node-2", 7, "boot-a"), read);
        assertTrue(read.vouchesFor("node-2", 7, "boot-a"));
        assertFalse(read.vouchesFor("node-2", 7, "boot-b"), "another boot: an OS crash may have lost writes");
        assertFalse(read.vouchesFor("node-2", 8, "boot-a"), "another placement epoch");
        assertFalse(read.vouchesFor("node-3", 7, "boot-a"), "a directory of another node");
        assertFalse(read.vouchesFor("node-2", 7, null), "no boot id on this machine");
        assertFalse(Files.exists(dir.resolve(InSyncStamp.FILE + ".tmp")));
    }

    @Test
    void rewritten_theNewestCounts() {
        new InSyncStamp("node-1", 3, "boot-a").write(dir);
        new InSyncStamp("node-1", 4, "boot-a").write(dir);

        assertEquals(4, InSyncStamp.read(dir).epoch());
    }

    @Test
    void missingOrUnreadable_noStamp() throws IOException {
        assertNull(InSyncStamp.read(dir), "none written");
        Files.writeString(dir.resolve(InSyncStamp.FILE), "node=node-1\nepoch=3\n");
        assertNull(InSyncStamp.read(dir), "no boot");
        Files.writeString(dir.resolve(InSyncStamp.FILE), "node=node-1\nepoch=three\nboot=b\n");
        assertNull(InSyncStamp.read(dir), "an epoch that is not a number");
        Files.writeString(dir.resolve(InSyncStamp.FILE), "node=node-1\nepoch=3\nboot=\\u12\n");
        assertNull(InSyncStamp.read(dir), "a malformed escape");
        assertNull(InSyncStamp.read(dir.resolve("absent")), "no directory");
    }

    @Test
    void currentBoot_stableWithinTheBoot() {
        String boot = InSyncStamp.currentBoot();
        if (Files.isReadable(Path.of("/proc/sys/kernel/random/boot_id"))) {
            assertNotNull(boot);
            assertEquals(boot, InSyncStamp.currentBoot());
        } else {
            assertNull(boot, "where the kernel names no boot, no stamp may vouch");
        }
    }
}
