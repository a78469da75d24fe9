package io.simdex.server.store;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Whether the data disk has room for the files the stores make as they grow. Chronicle Map
 * allocates a file whole when it makes it, so a write needs new disk only when it needs a new
 * file: a map's next generation (made ahead of need, {@link GrowingMap}) or a store's first.
 * Once one could not be made for lack of space, the process is <em>short of disk</em>:
 * {@link #requireRoom} refuses the writes that add data before they write anything, and each
 * refusal starts, at most once a second per file, another attempt to make the files that
 * failed; the first that succeeds for every one of them ends the shortage, with no restart.
 * With a write-ahead log every write appends to it too, and an append that fails for lack of
 * space puts the process short of disk the same way ({@code ShardLog}).
 *
 * <p>Without it a full disk hung writers: a file whose making failed stayed behind half made,
 * and the next writer to open it waited minutes for it to become ready, with every handler
 * thread of the process behind it.
 *
 * <p>Process-wide: the stores of one process share their data directory's disk.
 */
public final class DiskSpace {
    private static final Logger LOG = LoggerFactory.getLogger(DiskSpace.class);
    private static final long RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** Files that could not be made, by the map that needs them. */
    private static final Map<Object, Shortage> SHORT = new ConcurrentHashMap<>();

    private DiskSpace() {
    }

    /**
     * Returns when no file is known to lack space; throws {@link NoRoomException} otherwise,
     * after starting the attempts that are due to make the files that failed.
     */
    public static void requireRoom() {
        if (SHORT.isEmpty()) {
            return;
        }
        for (Shortage s : SHORT.values()) {
            s.retryIfDue();
        }
        // A retry that ran here and found room (the log's) lets this write through.
        for (Shortage s : SHORT.values()) {
            throw s.failure();
        }
    }

    /** Whether a file is known to lack space (metrics, tests). */
    public static boolean isShort() {
        return !SHORT.isEmpty();
    }

    /**
     * Records that {@code owner} could not make {@code file} for lack of space, and how to try
     * again ({@code retry}, run when {@link #requireRoom} finds it due; it reports its outcome
     * here); returns the exception to throw.
     */
    static NoRoomException shortOf(Object owner, Path file, IOException cause, Runnable retry) {
        return shortOf(owner, "make", file, cause, retry);
    }

    /**
     * As {@link #shortOf(Object, Path, IOException, Runnable)} for a file that exists but could
     * not be written to (a write-ahead log's segment).
     */
    public static NoRoomException cannotWrite(Object owner, Path file, IOException cause, Runnable retry) {
        return shortOf(owner, "write", file, cause, retry);
    }

    private static NoRoomException shortOf(Object owner, String verb, Path file, IOException cause, Runnable retry) {
        Shortage s = new Shortage(verb, file, cause.getMessage(), retry, new AtomicLong(System.nanoTime()));
        if (SHORT.put(owner, s) == null) {
            LOG.warn("the data disk is full: cannot {} {} ({}); writes that add data are refused until it can be {}", verb, file,
                    cause.getMessage(), s.participle());
        }
        return s.failure();
    }

    /** Records that {@code owner} has the room it lacked, or no longer needs it. */
    public static void roomAgain(Object owner) {
        Shortage s = SHORT.remove(owner);
        if (s != null) {
            LOG.info("{} no longer waits for room on the data disk ({}, or no longer needed){}", s.file, s.participle(),
                    SHORT.isEmpty() ? "; writes are taken again" : "");
        }
    }

    /**
     * The I/O failure in {@code e}'s causes that says the disk lacks space (the kernel's ENOSPC,
     * or Chronicle Map's own check before it allocates a file), or null.
     */
    public static IOException noSpace(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof IOException io && io.getMessage() != null
                    && (io.getMessage().contains("No space left on device") || io.getMessage().contains("Not enough space"))) {
                return io;
            }
        }
        return null;
    }

    private record Shortage(String verb, Path file, String cause, Runnable retry, AtomicLong lastTry) {
        String participle() {
            return verb.equals("make") ? "made" : "written";
        }

        void retryIfDue() {
            long last = lastTry.get();
            long now = System.nanoTime();
            if (now - last >= RETRY_NANOS && lastTry.compareAndSet(last, now)) {
                retry.run();
            }
        }

        NoRoomException failure() {
            return new NoRoomException("the data disk is full: cannot " + verb + " " + file.getFileName() + " (" + cause
                    + "); writes that add data are refused until it can be " + participle()
                    + ": free space on it (delete or expire collections) or give it more");
        }
    }
}
