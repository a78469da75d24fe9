package io.simdex.router.transport;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class BurstReadsTest {
    private final BurstReads.ReadHandle reads = (BurstReads.ReadHandle) new BurstReads().newHandle();

    @Test
    void smallReadsUntilAStreamFillsThemInARow_thenLargeUntilOneIsNotFull() {
        assertEquals(BurstReads.SMALL, reads.guess());
        read(BurstReads.STREAMING_AFTER - 1, true);
        assertEquals(BurstReads.SMALL, reads.guess(), "a burst of small calls keeps small reads");
        read(1, true);
        assertEquals(BurstReads.LARGE, reads.guess(), "16 KB waiting in a row: a stream");
        read(3, true);
        assertEquals(BurstReads.LARGE, reads.guess());
        read(1, false);
        assertEquals(BurstReads.SMALL, reads.guess(), "the backlog is gone");
    }

    @Test
    void aPartialReadOrTheEndOfTheStream_startsTheCountAgain() {
        read(BurstReads.STREAMING_AFTER - 1, true);
        read(1, false);
        read(BurstReads.STREAMING_AFTER - 1, true);
        assertEquals(BurstReads.SMALL, reads.guess());
        reads.attemptedBytesRead(reads.guess());
        reads.lastBytesRead(-1); // end of stream
        read(BurstReads.STREAMING_AFTER - 1, true);
        assertEquals(BurstReads.SMALL, reads.guess());
    }

    private void read(int times, boolean full) {
        for (int i = 0; i < times; i++) {
            int size = reads.guess();
            reads.attemptedBytesRead(size);
            reads.lastBytesRead(full ? size : size / 2);
        }
    }
}
