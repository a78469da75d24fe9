package io.simdex.server.store;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

class RedoSlotsTest {
    @TempDir
    Path dir;

    @Test
    void replay_handsBackEverySetSlot_notClearedOnes_andGrownSlotsOnce() {
        Path file = dir.resolve("x.redo");
        try (RedoSlots slots = new RedoSlots(file, 8)) {
            slots.record(0, body("cleared"));
            slots.clear(0);
            slots.record(1, body("small"));
            slots.record(2, body("first, then outgrown"));
            slots.clear(2);
            slots.record(2, body("y".repeat(10_000)));
            slots.record(3, body("z".repeat(5_000)));
            slots.clear(3);
            slots.record(3, body("back in its grown region"));
            slots.clear(7); // never used: nothing to clear
        }
        assertEquals(List.of("small", "y".repeat(10_000), "back in its grown region"), replay(file));
        assertFalse(Files.exists(file), "replay deletes the file");
        assertEquals(List.of(), replay(file), "nothing to redo twice");
    }

    @Test
    void aRecordCutShort_isIgnored_itsMapWriteHadNotBegun() throws Exception {
        Path file = dir.resolve("x.redo");
        try (RedoSlots slots = new RedoSlots(file, 2)) {
            slots.record(0, body("whole"));
            slots.record(1, body("torn by the kill"));
        }
        // The second region's body lost its last byte: zeros where the record's end should be.
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            int at = 4096 + 4 + 8 + "torn by the kill".length() - 1;
            f.seek(at);
            f.write(0);
        }
        assertEquals(List.of("whole"), replay(file));
    }

    @Test
    void aRegionWhoseAllocationWasCut_endsTheWalk() throws Exception {
        Path file = dir.resolve("x.redo");
        try (RedoSlots slots = new RedoSlots(file, 2)) {
            slots.record(0, body("whole"));
        }
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.setLength(4096 + 100); // a second region's capacity written, its end not yet
            f.seek(4096);
            f.writeInt(Integer.reverseBytes(4096));
        }
        assertEquals(List.of("whole"), replay(file));
    }

    private static ByteBuffer body(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    private static List<String> replay(Path file) {
        List<String> out = new ArrayList<>();
        RedoSlots.replay(file, b -> {
            byte[] bytes = new byte[b.remaining()];
            b.get(bytes);
            out.add(new String(bytes, StandardCharsets.UTF_8));
        });
        return out;
    }
}
