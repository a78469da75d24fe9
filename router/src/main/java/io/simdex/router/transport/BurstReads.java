package io.simdex.router.transport;

import io.grpc.netty.shaded.io.netty.channel.DefaultMaxMessagesRecvByteBufAllocator;

/**
 * How a public server's connections read their socket: {@value #SMALL} bytes at a time while
 * what is waiting is small calls, {@value #LARGE} once a connection has filled
 * {@value #STREAMING_AFTER} small reads in a row (a bulk stream or a big request), and small again
 * after a read that does not fill its buffer. One read per turn of the event loop.
 *
 * <p>Why: gRPC flushes a connection's responses once its event loop has handled what it read, so
 * a burst of small calls read in one gulp (Netty's default is up to 16 reads of up to 64 KB) got
 * every answer only after the last call was handled, and the first waited longest. A kilobyte is
 * about a dozen unary queries, whose answers now leave before the next are read. At 21,500 unary
 * queries/s this cut the embedded server's own p99 by a third to a half in every round. Reading a
 * bulk stream a kilobyte at a time cost 4-6% of BulkLoad's rate, hence the switch to large reads,
 * after which no cost showed (open-loop unary Query and BulkLoad runs of the loadtest module).
 */
final class BurstReads extends DefaultMaxMessagesRecvByteBufAllocator {
    static final int SMALL = 1024;
    static final int LARGE = 64 * 1024;
    /** 16 KB waiting in a row: about 200 unary queries, or a stream. */
    static final int STREAMING_AFTER = 16;

    BurstReads() {
        super(1);
    }

    @Override
    public Handle newHandle() {
        return new ReadHandle();
    }

    /** One per connection, used only by its event loop. */
    final class ReadHandle extends MaxMessageHandle {
        private int fullInARow;

        @Override
        public int guess() {
            return fullInARow >= STREAMING_AFTER ? LARGE : SMALL;
        }

        @Override
        public void lastBytesRead(int bytes) {
            fullInARow = bytes > 0 && bytes == attemptedBytesRead() ? fullInARow + 1 : 0;
            super.lastBytesRead(bytes);
        }
    }
}
