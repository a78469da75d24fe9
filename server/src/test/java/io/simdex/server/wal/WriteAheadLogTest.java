package io.simdex.server.wal;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A log write that fails for lack of space leaves the log whole and usable; a future of a
 * position completes once a force covers it, and fails as a wait for it would.
 */
class WriteAheadLogTest {
    @TempDir
    Path root;
    private final GatedChannels channels = new GatedChannels();
    private WriteAheadLog log;

    @AfterEach
    void tearDown() {
        if (log != null) {
            log.close();
        }
    }

    private Path dir() {
        return root.resolve("write.log");
    }

    @Test
    void append_thatRunsOutOfRoomPartWay_leavesNoTornRecord_andLaterAppendsAreReplayed() throws IOException {
        log = WriteAheadLog.open(dir(), root, WriteAheadLog.SEGMENT_BYTES, channels);
        log.append(body("first"));
        log.append(body("second"));
        // The record's header and part of its body fit.
        channels.noRoomAfter(RecordFrame.HEADER_BYTES + 3);
        WriteAheadLog.NotWrittenException e = assertThrows(WriteAheadLog.NotWrittenException.class, () -> log.append(body("cut short")));
        assertTrue(e.getMessage().contains("No space left on device"), e.getMessage());
        assertEquals(LogFiles.segment(dir(), 1), e.file());
        // Still full: refused again, nothing written.
        assertThrows(WriteAheadLog.NotWrittenException.class, () -> log.append(body("refused")));

        channels.roomAgain();
        long end = log.append(body("after"));
        log.awaitForced(end);

        Segment s = read(LogFiles.segment(dir(), 1));
        assertEquals(List.of("first", "second", "after"), s.bodies());
        assertEquals(s.size(), s.end(), "bytes after the last whole record");
        assertEquals(end, s.size());
    }

    @Test
    void checkpoint_whoseNewSegmentCannotBeMade_leavesTheLogInItsSegment_untilThereIsRoom() throws IOException {
        log = WriteAheadLog.open(dir(), root, WriteAheadLog.SEGMENT_BYTES, channels);
        log.append(body("first"));
        channels.noSegmentsAfter(0);
        WriteAheadLog.NotWrittenException e = assertThrows(WriteAheadLog.NotWrittenException.class, log::checkpoint);
        assertEquals(LogFiles.segment(dir(), 2), e.file());
        assertEquals(List.of(LogFiles.segment(dir(), 1)), LogFiles.segments(dir()));
        log.awaitForced(log.append(body("second")));
        assertEquals(List.of("first", "second"), read(LogFiles.segment(dir(), 1)).bodies());

        channels.roomAgain();
        log.checkpoint();
        log.awaitForced(log.append(body("third")));
        assertEquals(List.of(LogFiles.segment(dir(), 2)), LogFiles.segments(dir()));
        assertEquals(List.of("third"), read(LogFiles.segment(dir(), 2)).bodies());
    }

    @Test
    void forcedTo_completesOnlyOnceAForceCoversItsPosition_nearestFirst() throws Exception {
        log = WriteAheadLog.open(dir(), root, WriteAheadLog.SEGMENT_BYTES, channels);
        channels.holdForces();
        long first = log.append(body("first"));
        await(() -> channels.forcesEntered.get() == 1, "the syncer's force of the first record");
        long second = log.append(body("second"));
        CompletableFuture<Void> secondForced = log.forcedTo(second);
        CompletableFuture<Void> firstForced = log.forcedTo(first);
        assertFalse(firstForced.isDone() || secondForced.isDone(), "completed while the force was held");

        channels.releaseForces();
        firstForced.get(30, TimeUnit.SECONDS);
        assertTrue(channels.forced.get() >= first, "completed before a force covered its record");
        secondForced.get(30, TimeUnit.SECONDS);
        assertEquals(channels.written.get(), channels.forced.get(), "completed before a force covered its record");
        assertTrue(log.forcedTo(first).isDone(), "a position already forced completes at once");
    }

    @Test
    void forcedTo_aFailedForce_completesExceptionally() throws Exception {
        log = WriteAheadLog.open(dir(), root, WriteAheadLog.SEGMENT_BYTES, channels);
        channels.holdForces();
        long end = log.append(body("first"));
        CompletableFuture<Void> forced = log.forcedTo(end);
        channels.fail();
        channels.releaseForces();
        ExecutionException e = assertThrows(ExecutionException.class, () -> forced.get(30, TimeUnit.SECONDS));
        assertTrue(e.getCause() instanceof UncheckedIOException && e.getCause().getMessage().contains("not durable"), e.getCause().toString());
        // Later ones fail at once.
        assertTrue(log.forcedTo(end + 1).isCompletedExceptionally());
    }

    @Test
    void forcedTo_aLogClosedFirst_completesExceptionally() throws Exception {
        WriteAheadLog closing = WriteAheadLog.open(dir(), root, WriteAheadLog.SEGMENT_BYTES, channels);
        channels.holdForces();
        long end = closing.append(body("first"));
        await(() -> channels.forcesEntered.get() == 1, "the syncer's force");
        CompletableFuture<Void> forced = closing.forcedTo(end);
        Thread closer = new Thread(closing::close);
        closer.start();
        ExecutionException e = assertThrows(ExecutionException.class, () -> forced.get(30, TimeUnit.SECONDS));
        assertTrue(e.getCause() instanceof IllegalStateException && e.getCause().getMessage().contains("closed before"), e.getCause().toString());
        channels.releaseForces();
        closer.join(30_000);
        assertFalse(closer.isAlive(), "close did not return");
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.sleep(1);
        }
    }

    private static ByteBuffer body(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    private record Segment(List<String> bodies, int end, long size) {
    }

    private static Segment read(Path segment) throws IOException {
        try (FileChannel ch = FileChannel.open(segment, StandardOpenOption.READ)) {
            MappedByteBuffer map = ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size());
            List<String> bodies = new ArrayList<>();
            int end = RecordFrame.read(map, b -> {
                byte[] bytes = new byte[b.remaining()];
                b.get(bytes);
                bodies.add(new String(bytes, StandardCharsets.UTF_8));
            });
            return new Segment(bodies, end, Files.size(segment));
        }
    }
}
