package io.simdex.server.wal;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A log write that fails for lack of space leaves the log whole and usable. */
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
