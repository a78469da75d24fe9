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
 * (it waits for {@link #releaseForces}) or made to fail.
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
            int n = d.write(src);
            written.addAndGet(n);
            writes.incrementAndGet();
            return n;
        }

        @Override
        public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
            long n = d.write(srcs, offset, length);
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
