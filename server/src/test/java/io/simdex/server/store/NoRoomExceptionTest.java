package io.simdex.server.store;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

/** Which failures say the disk has no room, and in what words. */
class NoRoomExceptionTest {
    private static final IOException FULL = new IOException("No space left on device");

    @Test
    void in_aFullDiskUnderWhatCouldNotBeDone_namesBoth() {
        assertEquals("the data disk is full: cannot write data/collections.json: No space left on device",
                NoRoomException.in(new UncheckedIOException("cannot write data/collections.json", FULL)).getMessage());
        assertEquals("the data disk is full: No space left on device", NoRoomException.in(new UncheckedIOException(FULL)).getMessage());
        assertEquals("the data disk is full: No space left on device", NoRoomException.in(FULL).getMessage());
    }

    @Test
    void in_otherFailures_isNull_andARefusalIsItself() {
        assertNull(NoRoomException.in(new UncheckedIOException("cannot write x", new IOException("Input/output error"))));
        assertNull(NoRoomException.in(new IllegalStateException("no")));
        NoRoomException refused = new NoRoomException("the data disk is full: cannot make ids-2.cm");
        assertSame(refused, NoRoomException.in(new RuntimeException(refused)));
    }
}
