package io.simdex.server.wal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Segment channels for tests: they count writes and forces, and a force can be held at a gate
 * (it waits for {@link #releaseForces}) or made to fail; writes and new segments can be made
 * to fail as on a full disk.
 */
public final class GatedChannels implements WriteAheadLog.Channels {
    public final AtomicInteger forces = new AtomicInteger();
    public final AtomicInteger forcesEntered = new AtomicInteger();
    public final AtomicInteger writes = new AtomicInteger();
    /** Bytes written, and bytes written before the last force that returned began. */
    public final AtomicLong written = new AtomicLong();
    public final AtomicLong forced = new AtomicLong();
    private volatile CountDownLatch gate = new CountDownLatch(0);
    private volatile boolean failing;
    /** Bytes the disk still takes before writes fail as on a full disk; MAX_VALUE: no limit. */
    private final AtomicLong room = new AtomicLong(Long.MAX_VALUE);
    /** Segments to make before making one fails as on a full disk; MAX_VALUE: no limit. */
    private final AtomicLong creations = new AtomicLong(Long.MAX_VALUE);

    /**
     * From now on writes take {@code bytes} more in all, the write that crosses that in part
     * (as the kernel writes what fits), and then fail with ENOSPC's message.
     */
    public void noRoomAfter(long bytes) {
        room.set(bytes);
    }

    /** From now on making a segment fails with ENOSPC's message after {@code segments} more are made. */
    public void noSegmentsAfter(long segments) {
        creations.set(segments);
    }

    /** Ends {@link #noRoomAfter} and {@link #noSegmentsAfter}. */
    public void roomAgain() {
        room.set(Long.MAX_VALUE);
        creations.set(Long.MAX_VALUE);
    }

    /** From now on every force waits until {@link #releaseForces}. */
    public void holdForces() {
        gate = new CountDownLatch(1);
    }

    public void releaseForces() {
        gate.countDown();
    }

    /** From now on every force throws. */
    public void fail() {
        failing = true;
    }

    @Override
    public FileChannel create(Path file) throws IOException {
        if (creations.get() != Long.MAX_VALUE && creations.getAndDecrement() <= 0) {
            creations.incrementAndGet();
            throw new IOException("No space left on device");
        }
        return new Gated(WriteAheadLog.FILES.create(file));
    }

    private final class Gated extends FileChannel {
        private final FileChannel d;

        Gated(FileChannel d) {
            this.d = d;
        }

        @Override
        public void force(boolean metaData) throws IOException {
            forcesEntered.incrementAndGet();
            long covered = written.get();
            try {
                gate.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new java.io.InterruptedIOException("interrupted at the force gate");
            }
            if (failing) {
                throw new IOException("injected force failure");
            }
            d.force(metaData);
            forced.accumulateAndGet(covered, Math::max);
            forces.incrementAndGet();
        }

        @Override
        public int write(ByteBuffer src) throws IOException {
            return (int) write(new ByteBuffer[] {src}, 0, 1);
        }

        @Override
        public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
            long left = room.get();
            if (left == Long.MAX_VALUE) {
                long n = d.write(srcs, offset, length);
                written.addAndGet(n);
                writes.incrementAndGet();
                return n;
            }
            if (left <= 0) {
                throw new IOException("No space left on device");
            }
            // What fits, buffer by buffer; the next write finds no room.
            long n = 0;
            for (int i = offset; i < offset + length && n < left; i++) {
                ByteBuffer part = srcs[i].duplicate();
                part.limit(part.position() + (int) Math.min(part.remaining(), left - n));
                int w = d.write(part);
                srcs[i].position(srcs[i].position() + w);
                n += w;
            }
            room.addAndGet(-n);
            written.addAndGet(n);
            writes.incrementAndGet();
            return n;
        }

        @Override
        public int read(ByteBuffer dst) throws IOException {
            return d.read(dst);
        }

        @Override
        public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
            return d.read(dsts, offset, length);
        }

        @Override
        public long position() throws IOException {
            return d.position();
        }

        @Override
        public FileChannel position(long p) throws IOException {
            d.position(p);
            return this;
        }

        @Override
        public long size() throws IOException {
            return d.size();
        }

        @Override
        public FileChannel truncate(long size) throws IOException {
            d.truncate(size);
            return this;
        }

        @Override
        public long transferTo(long position, long count, WritableByteChannel target) throws IOException {
            return d.transferTo(position, count, target);
        }

        @Override
        public long transferFrom(ReadableByteChannel src, long position, long count) throws IOException {
            return d.transferFrom(src, position, count);
        }

        @Override
        public int read(ByteBuffer dst, long position) throws IOException {
            return d.read(dst, position);
        }

        @Override
        public int write(ByteBuffer src, long position) throws IOException {
            throw new UnsupportedOperationException("the log appends");
        }

        @Override
        public MappedByteBuffer map(MapMode mode, long position, long size) throws IOException {
            return d.map(mode, position, size);
        }

        @Override
        public FileLock lock(long position, long size, boolean shared) throws IOException {
            return d.lock(position, size, shared);
        }

        @Override
        public FileLock tryLock(long position, long size, boolean shared) throws IOException {
            return d.tryLock(position, size, shared);
        }

        @Override
        protected void implCloseChannel() throws IOException {
            d.close();
        }
    }
}
