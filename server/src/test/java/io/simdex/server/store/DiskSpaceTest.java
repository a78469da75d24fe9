package io.simdex.server.store;

import net.openhft.chronicle.map.ChronicleMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A map whose next file cannot be made for lack of space: writes are refused up front and at
 * once, what was written stays whole, and writes are taken again once the file can be made.
 */
class DiskSpaceTest {
    private static final int FIRST = 1000;

    @TempDir
    Path dir;

    @AfterEach
    void noShortageLeft() {
        assertFalse(DiskSpace.isShort(), "a shortage left behind (it would refuse the next tests' writes)");
    }

    @Test
    void aRetryThatFindsRoomAtOnce_letsTheWriteThatRanItThrough() throws Exception {
        Object owner = new Object();
        AtomicInteger retries = new AtomicInteger();
        DiskSpace.shortOf(owner, dir.resolve("00000000000000000001.wal"), new java.io.IOException("No space left on device"), () -> {
            retries.incrementAndGet();
            DiskSpace.roomAgain(owner);
        });
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            while (true) {
                try {
                    DiskSpace.requireRoom();
                    return;
                } catch (NoRoomException e) {
                    assertEquals(0, retries.get(), "refused by the call whose retry found room");
                    Thread.sleep(10);
                }
            }
        });
        assertEquals(1, retries.get());
    }

    @Test
    void aNextGenerationThatCannotBeMadeAhead_refusesWritesUpFront_untilItCanBe() throws Exception {
        try (GrowingMap<Long, Long> m = new GrowingMap<>(dir, "m", FIRST, n -> ChronicleMap.of(Long.class, Long.class).entries(n), false);
             FullDisk disk = FullDisk.fill()) {
            long mark = (long) (FIRST * GrowingMap.PREPARE_AT);
            for (long k = 0; k < mark; k++) {
                m.put(k, k);
            }
            // The file is made ahead on another thread: its failure is seen once that has run.
            assertTrue(await(DiskSpace::isShort, Duration.ofSeconds(20)), "the failure to make m-1.cm ahead was not recorded");
            NoRoomException refused = assertThrows(NoRoomException.class, DiskSpace::requireRoom);
            assertTrue(refused.getMessage().contains("cannot make m-1.cm (No space left on device)"), refused.getMessage());

            // Writes already past the check fill the room the newest generation has left...
            for (long k = mark; k < FIRST; k++) {
                m.put(k, k);
            }
            // ...and one that needs the next file fails at once, adding nothing and leaving no file half made.
            assertTimeoutPreemptively(Duration.ofSeconds(10), () -> assertThrows(NoRoomException.class, () -> m.put((long) FIRST, 1L)));
            assertNull(m.get((long) FIRST));
            assertFalse(FullDisk.holds(dir, "m-1.cm"), "a half-made m-1.cm left behind");
            assertEquals(1, m.generationCount());

            disk.free();
            // A refused write starts another attempt, at most a second after the one before.
            assertTrue(await(DiskSpaceTest::room, Duration.ofSeconds(20)), "writes still refused once the disk had room");
            assertTrue(Files.exists(dir.resolve("m-1.cm")));
            for (long k = FIRST; k < FIRST + 10; k++) {
                m.put(k, k);
            }
            assertEquals(2, m.generationCount());
            for (long k = 0; k < FIRST + 10; k++) {
                assertEquals(k, m.get(k), "key " + k);
            }
        }
    }

    @Test
    void aFirstFileMadeOnAWrite_thatFails_leavesNothingHalfMade_andIsMadeOnceThereIsRoom() throws Exception {
        // A half-made file left behind made the next writer wait minutes for it to become ready.
        try (FullDisk disk = FullDisk.fill();
             GrowingMap<Long, Long> m = GrowingMap.onFirstWrite(dir, "m", FIRST, n -> ChronicleMap.of(Long.class, Long.class).entries(n),
                     false)) {
            assertThrows(NoRoomException.class, () -> m.put(1L, 1L));
            assertFalse(FullDisk.holds(dir, "m-0.cm"), "a half-made m-0.cm left behind");
            assertTrue(DiskSpace.isShort());
            assertTimeoutPreemptively(Duration.ofSeconds(10), () -> assertThrows(NoRoomException.class, () -> m.put(2L, 2L)));

            disk.free();
            assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
                while (true) {
                    try {
                        DiskSpace.requireRoom();
                        m.put(1L, 1L);
                        return;
                    } catch (NoRoomException e) {
                        Thread.sleep(20); // polls a condition: the retry, at most a second after the last attempt, making the file
                    }
                }
            });
            assertEquals(1L, m.get(1L));
            assertEquals(1, m.size());
        }
    }

    @Test
    void aStoreWhoseFirstFileCannotBeMadeWhenOpened_failsToOpen_andWritesAreTakenOnceThereIsRoom() throws Exception {
        try (FullDisk disk = FullDisk.fill()) {
            assertThrows(NoRoomException.class, this::openFirstFile);
            assertFalse(FullDisk.holds(dir, "m-0.cm"), "a half-made m-0.cm left behind");
            // The retry makes a file of its size under another name, and deletes it: while the disk
            // is full it fails, and writes stay refused (3 s: retries at most a second apart).
            assertFalse(await(DiskSpaceTest::room, Duration.ofSeconds(3)), "writes taken while the disk was full");
            disk.free();
            assertTrue(await(DiskSpaceTest::room, Duration.ofSeconds(20)), "writes still refused once the disk had room");
            assertFalse(FullDisk.holds(dir, "m-0.cm"), "the retry made the map's own file");
            assertFalse(FullDisk.holds(dir, "m-0.cm.probe"), "the retry's file left behind");
        }
        try (GrowingMap<Long, Long> m = openFirstFile()) {
            m.put(1L, 1L);
            assertEquals(1L, m.get(1L));
        }
    }

    @Test
    void aStoreWhoseFirstFileCouldNotBeMade_openedOnceThereIsRoom_endsTheShortage() throws Exception {
        try (FullDisk disk = FullDisk.fill()) {
            assertThrows(NoRoomException.class, this::openFirstFile);
            disk.free();
        }
        assertTrue(DiskSpace.isShort());
        try (GrowingMap<Long, Long> m = openFirstFile()) {
            assertFalse(DiskSpace.isShort(), "the file it lacked room for is made");
            m.put(1L, 1L);
        }
    }

    private GrowingMap<Long, Long> openFirstFile() {
        return new GrowingMap<>(dir, "m", FIRST, n -> ChronicleMap.of(Long.class, Long.class).entries(n), false);
    }

    /** Whether writes are taken; a refusal starts the retries that are due. */
    private static boolean room() {
        try {
            DiskSpace.requireRoom();
            return true;
        } catch (NoRoomException e) {
            return false;
        }
    }

    /** Whether {@code condition} holds within {@code wait} (polled). */
    private static boolean await(BooleanSupplier condition, Duration wait) throws InterruptedException {
        long deadline = System.nanoTime() + wait.toNanos();
        while (System.nanoTime() - deadline < 0) {
            if (condition.getAsBoolean()) {
                return true;
            }
            Thread.sleep(20); // polls a condition: a background attempt to make a file
        }
        return false;
    }
}
