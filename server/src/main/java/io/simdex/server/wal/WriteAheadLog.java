package io.simdex.server.wal;

import io.simdex.core.io.DurableFiles;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A node's write-ahead log: records appended to segment files in {@code dir}, forced to disk by
 * one syncer thread for every writer waiting (group commit), and dropped at a checkpoint once
 * the stores they describe are forced too.
 *
 * <p>Positions are bytes appended since the log opened. {@link #append} returns the end of its
 * record; {@link #awaitForced} returns once a force has covered a position, and
 * {@link #forcedTo} completes a future then, so that a server need not hold a thread per write
 * waiting. The syncer forces whenever something is appended and not yet forced, so writes
 * arriving during one force share the next. A failed force fails the log for good: every later
 * append and wait throws, since after a failed fsync the kernel may have dropped the dirty
 * pages, and the node must restart (and replay) before it acknowledges writes again.
 *
 * <p>A failed append does not, once the segment is cut back to where the record began
 * ({@link NotWrittenException}): a full disk fails a write part way, and the bytes written
 * would leave a torn record that replay stops at, losing every record after it. Cut back, the
 * segment ends with the last whole record, and the next append may succeed when the disk has
 * room again. Only when the cut fails does the log fail for good.
 *
 * <p>The caller appends a record after applying its change to the stores. So when a checkpoint
 * starts a new segment, every record of the older ones has been applied; forcing the stores
 * then makes those segments redundant, and they are deleted. A change being applied meanwhile
 * lands in the new segment.
 */
public final class WriteAheadLog implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(WriteAheadLog.class);
    /** Opens a new segment file for appending; tests pass one whose channels record or fail force(). */
    @FunctionalInterface
    public interface Channels {
        FileChannel create(Path file) throws IOException;
    }

    public static final Channels FILES = f -> FileChannel.open(f, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
    /** A segment this large starts a checkpoint: replay after a crash reads at most about this much. */
    public static final long SEGMENT_BYTES = 64L << 20;

    private final Path dir;
    private final Path storesRoot;
    private final long segmentBytes;
    private final Channels channels;
    /** Guards the fields below and the current channel's writes. */
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition unforced = lock.newCondition();
    private final Condition forcedMoved = lock.newCondition();
    private final Condition checkpointWanted = lock.newCondition();
    /** Held across a force, so that a checkpoint never closes the channel being forced. */
    private final ReentrantLock forcing = new ReentrantLock();
    private FileChannel current;
    private long segment;
    private long segmentStart;
    private long appended;
    private long forced;
    private IOException failure;
    /** The futures of {@link #forcedTo}, nearest position first. */
    private final PriorityQueue<Waiter> waiters = new PriorityQueue<>(Comparator.comparingLong(Waiter::position));
    private boolean checkpointDue;
    private boolean closed;
    private final AtomicLong forces = new AtomicLong();
    private final AtomicLong forceNanos = new AtomicLong();
    private final AtomicLong checkpoints = new AtomicLong();
    private final Thread syncer;
    private final Thread checkpointer;

    private WriteAheadLog(Path dir, Path storesRoot, long segmentBytes, Channels channels) throws IOException {
        this.dir = dir;
        this.storesRoot = storesRoot;
        this.segmentBytes = segmentBytes;
        this.channels = channels;
        this.current = newSegment(1);
        this.segment = 1;
        this.syncer = daemon(this::syncLoop, "wal-sync " + dir);
        this.checkpointer = daemon(this::checkpointLoop, "wal-checkpoint " + dir);
    }

    /**
     * Opens an empty log in {@code dir} for the stores under {@code storesRoot} (which holds
     * {@code dir}); any segment still there must have been {@link LogFiles#replay replayed} first.
     */
    public static WriteAheadLog open(Path dir, Path storesRoot, long segmentBytes, Channels channels) {
        try {
            Files.createDirectories(dir);
            DurableFiles.syncDirectory(dir.getParent());
            if (LogFiles.hasSegments(dir)) {
                throw new IllegalStateException(dir + " holds log segments: replay them before opening the log");
            }
            return new WriteAheadLog(dir, storesRoot, segmentBytes, channels);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open the write-ahead log in " + dir, e);
        }
    }

    /**
     * A write to the log that failed and left it as it was: an append (its segment cut back,
     * the record not in the log) or the start of a new segment. Later writes may succeed.
     */
    public static final class NotWrittenException extends UncheckedIOException {
        private final Path file;

        NotWrittenException(Path file, IOException cause) {
            super("cannot write " + file + ": " + cause.getMessage(), cause);
            this.file = file;
        }

        /** The segment file that could not be written or made. */
        public Path file() {
            return file;
        }
    }

    /**
     * Appends one record; returns its end, the position to {@link #awaitForced await}.
     *
     * @throws NotWrittenException when the record could not be written; nothing of it is in the log
     */
    public long append(ByteBuffer body) {
        ByteBuffer[] frame = {RecordFrame.header(body), body.duplicate()};
        lock.lock();
        try {
            throwIfFailed();
            long bytes = frame[0].remaining() + frame[1].remaining();
            long start = appended - segmentStart;
            try {
                while (frame[1].hasRemaining()) {
                    current.write(frame);
                }
            } catch (IOException e) {
                throw cutBack(start, e);
            }
            appended += bytes;
            unforced.signal();
            if (!checkpointDue && appended - segmentStart >= segmentBytes) {
                checkpointDue = true;
                checkpointWanted.signal();
            }
            return appended;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Cuts the current segment back to {@code start}, where a failed record began; the caller
     * holds the lock. Returns the exception to throw; fails the log for good if the cut fails.
     */
    private RuntimeException cutBack(long start, IOException e) {
        Path file = LogFiles.segment(dir, segment);
        try {
            current.truncate(start);
            current.position(start);
            return new NotWrittenException(file, e);
        } catch (IOException cut) {
            e.addSuppressed(cut);
            fail(e);
            return new UncheckedIOException("write-ahead log " + dir + " failed: a record could not be written to " + file
                    + " nor cut from it; writes are not durable until the node restarts", e);
        }
    }

    /** Whether the log has failed for good: every later append and wait throws until the node restarts. */
    public boolean failed() {
        lock.lock();
        try {
            return failure != null;
        } finally {
            lock.unlock();
        }
    }

    /**
     * What the log has done since it opened: segment forces and the time they took (the disk's
     * fsync latency, which every acknowledged write waits for), bytes appended, checkpoints.
     */
    public record Stats(long forces, long forceNanos, long appendedBytes, long checkpoints) {
        public static final Stats NONE = new Stats(0, 0, 0, 0);

        public Stats plus(Stats o) {
            return new Stats(forces + o.forces, forceNanos + o.forceNanos, appendedBytes + o.appendedBytes, checkpoints + o.checkpoints);
        }
    }

    public Stats stats() {
        return new Stats(forces.get(), forceNanos.get(), end(), checkpoints.get());
    }

    /** The end of the last record appended. */
    public long end() {
        lock.lock();
        try {
            return appended;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Returns once a force has covered {@code position}.
     *
     * @throws UncheckedIOException when a force failed before covering it (the write is not durable)
     */
    public void awaitForced(long position) {
        lock.lock();
        try {
            while (forced < position) {
                throwIfFailed();
                if (closed) {
                    throw closedBefore(position);
                }
                forcedMoved.awaitUninterruptibly();
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * A future completed once a force has covered {@code position}, as {@link #awaitForced}
     * returns, by the thread that made the force: dependents that do more than hand off belong
     * on an executor of their own, or the next force waits for them.
     * It completes exceptionally as {@code awaitForced} throws: an {@link UncheckedIOException}
     * when a force failed before covering it, an {@link IllegalStateException} when the log
     * closed first.
     */
    public CompletableFuture<Void> forcedTo(long position) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        lock.lock();
        try {
            if (forced >= position) {
                done.complete(null);
            } else if (failure != null) {
                done.completeExceptionally(notDurable());
            } else if (closed) {
                done.completeExceptionally(closedBefore(position));
            } else {
                waiters.add(new Waiter(position, done));
            }
        } finally {
            lock.unlock();
        }
        return done;
    }

    private record Waiter(long position, CompletableFuture<Void> done) {
    }

    private void syncLoop() {
        while (true) {
            lock.lock();
            try {
                while (!closed && failure == null && forced == appended) {
                    unforced.awaitUninterruptibly();
                }
                if (closed || failure != null) {
                    return;
                }
            } finally {
                lock.unlock();
            }
            forceCurrent();
        }
    }

    /** Forces the current segment up to what is appended now: one fsync for every writer waiting. */
    private void forceCurrent() {
        forcing.lock();
        try {
            FileChannel ch;
            long target;
            lock.lock();
            try {
                ch = current;
                target = appended;
            } finally {
                lock.unlock();
            }
            force(ch);
            markForced(target);
        } catch (IOException e) {
            fail(e);
        } finally {
            forcing.unlock();
        }
    }

    /** Forces {@code ch}'s data (fdatasync), counted and timed for {@link #stats}. */
    private void force(FileChannel ch) throws IOException {
        long start = System.nanoTime();
        ch.force(false);
        forceNanos.addAndGet(System.nanoTime() - start);
        forces.incrementAndGet();
    }

    private void checkpointLoop() {
        // Whether the last background checkpoint could not make its segment: said once, not at every append past the size.
        boolean stalled = false;
        while (true) {
            lock.lock();
            try {
                while (!closed && !checkpointDue) {
                    checkpointWanted.awaitUninterruptibly();
                }
                if (closed) {
                    return;
                }
            } finally {
                lock.unlock();
            }
            try {
                checkpointIfDue();
                if (stalled) {
                    LOG.info("write-ahead log {}: checkpoints resumed", dir);
                    stalled = false;
                }
            } catch (NotWrittenException e) {
                // No new segment (a full disk): the log goes on in this one, and the next append
                // past the segment's size asks again.
                if (!stalled) {
                    LOG.warn("write-ahead log {}: no checkpoint, the next segment could not be made: {}", dir, e.getMessage());
                    stalled = true;
                }
                lock.lock();
                try {
                    checkpointDue = false;
                } finally {
                    lock.unlock();
                }
            } catch (RuntimeException e) {
                // The log has failed (see fail); writes report it.
                return;
            }
        }
    }

    /**
     * The background checkpoint, skipped when an explicit {@link #checkpoint} ran since it was
     * asked for (its rotate cleared the flag): a second one would only rotate an empty segment.
     */
    private synchronized void checkpointIfDue() {
        boolean due;
        lock.lock();
        try {
            due = checkpointDue;
        } finally {
            lock.unlock();
        }
        if (due) {
            checkpoint();
        }
    }

    /**
     * Starts a new segment, forces the stores, and deletes the older segments: what they record
     * is then on disk in the stores themselves.
     */
    public synchronized void checkpoint() {
        long older = rotate();
        LogFiles.forceStores(storesRoot, dir);
        try {
            for (Path p : LogFiles.segments(dir)) {
                if (LogFiles.number(p) <= older) {
                    Files.delete(p);
                }
            }
            DurableFiles.syncDirectory(dir);
            checkpoints.incrementAndGet();
        } catch (IOException e) {
            fail(e);
            throwIfFailed();
        }
    }

    /** Switches appends to a new segment after forcing the current one; returns the old one's number. */
    private long rotate() {
        forcing.lock();
        try {
            FileChannel next;
            try {
                next = newSegment(segment + 1);
            } catch (IOException e) {
                throw new NotWrittenException(LogFiles.segment(dir, segment + 1), e);
            }
            FileChannel old;
            long oldEnd;
            lock.lock();
            try {
                throwIfFailed();
                old = current;
                oldEnd = appended;
                current = next;
                segment++;
                segmentStart = appended;
                checkpointDue = false;
            } finally {
                lock.unlock();
            }
            force(old);
            old.close();
            markForced(oldEnd);
            return segment - 1;
        } catch (IOException e) {
            fail(e);
            throwIfFailed();
            throw new AssertionError("unreachable");
        } finally {
            forcing.unlock();
        }
    }

    /** Makes segment {@code number}, durably; on failure none is left, so that a later attempt can make it. */
    private FileChannel newSegment(long number) throws IOException {
        Path file = LogFiles.segment(dir, number);
        FileChannel ch = channels.create(file);
        try {
            DurableFiles.syncDirectory(dir);
            return ch;
        } catch (IOException e) {
            ch.close();
            Files.deleteIfExists(file);
            throw e;
        }
    }

    private void markForced(long position) {
        List<CompletableFuture<Void>> covered = List.of();
        lock.lock();
        try {
            forced = Math.max(forced, position);
            forcedMoved.signalAll();
            while (!waiters.isEmpty() && waiters.peek().position() <= forced) {
                if (covered.isEmpty()) {
                    covered = new ArrayList<>(); // once per force that has waiters, none for the others
                }
                covered.add(waiters.poll().done());
            }
        } finally {
            lock.unlock();
        }
        // Outside the lock: a dependent may append.
        covered.forEach(f -> f.complete(null));
    }

    private void fail(IOException e) {
        List<Waiter> waiting;
        RuntimeException failed;
        lock.lock();
        try {
            if (failure == null) {
                failure = e;
            }
            forcedMoved.signalAll();
            unforced.signalAll();
            waiting = drainWaiters();
            failed = notDurable();
        } finally {
            lock.unlock();
        }
        waiting.forEach(w -> w.done().completeExceptionally(failed));
    }

    /** The waiters of {@link #forcedTo}, taken from the queue; the caller holds the lock. */
    private List<Waiter> drainWaiters() {
        List<Waiter> all = new ArrayList<>(waiters);
        waiters.clear();
        return all;
    }

    private void throwIfFailed() {
        if (failure != null) {
            throw notDurable();
        }
    }

    private UncheckedIOException notDurable() {
        return new UncheckedIOException("write-ahead log " + dir + " failed; writes are not durable until the node restarts", failure);
    }

    private IllegalStateException closedBefore(long position) {
        return new IllegalStateException("write-ahead log " + dir + " closed before position " + position + " was forced");
    }

    /**
     * Stops the threads, forces the stores and deletes every segment: call once the stores are
     * closed, so the next open has nothing to replay. Writers still waiting get an exception.
     */
    @Override
    public void close() {
        List<Waiter> waiting;
        lock.lock();
        try {
            closed = true;
            unforced.signalAll();
            forcedMoved.signalAll();
            checkpointWanted.signalAll();
            waiting = drainWaiters();
        } finally {
            lock.unlock();
        }
        waiting.forEach(w -> w.done().completeExceptionally(closedBefore(w.position())));
        join(syncer);
        join(checkpointer);
        forcing.lock();
        try {
            current.close();
            if (failure == null) {
                LogFiles.forceStores(storesRoot, dir);
                LogFiles.deleteSegments(dir);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot close the write-ahead log in " + dir, e);
        } finally {
            forcing.unlock();
        }
    }

    private static Thread daemon(Runnable body, String name) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    private static void join(Thread t) {
        try {
            t.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
