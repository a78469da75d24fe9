package io.simdex.server;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A shard's data directory held by one process: an OS lock (POSIX, {@link FileChannel#tryLock})
 * on its {@code .lock} file, which names the holder's pid. Two processes on one directory each
 * recover and write the same memory-mapped files as if they were theirs: a second
 * {@code simdex embedded} on a running one's {@code ./data} ran Chronicle Map's recovery on the
 * live maps (which needs exclusive access) and then hung on their locks. The kernel releases the
 * lock when its process dies, so a kill -9 leaves nothing to clean up; the file stays.
 */
final class DataDirLock implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DataDirLock.class);
    static final String FILE = ".lock";
    /** Directories this process holds (real paths). */
    private static final Set<Path> HELD = ConcurrentHashMap.newKeySet();
    private final Path key;
    private final FileChannel channel;
    private final FileLock lock;

    private DataDirLock(Path key, FileChannel channel, FileLock lock) {
        this.key = key;
        this.channel = channel;
        this.lock = lock;
    }

    /** Takes {@code dir} (created if missing) for this process; fails, naming the holder, if another holds it. */
    static DataDirLock take(Path dir) {
        Path file = dir.resolve(FILE);
        Path key;
        try {
            Files.createDirectories(dir);
            key = dir.toRealPath();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot lock " + file, e);
        }
        // Held here already: refused before the file is opened, since closing any descriptor
        // of a file drops the process's POSIX locks on it, the holder's too.
        if (!HELD.add(key)) {
            throw inUse(dir, "pid " + ProcessHandle.current().pid());
        }
        FileChannel channel = null;
        try {
            channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
            FileLock lock = channel.tryLock();
            if (lock == null) {
                throw inUse(dir, holder(file));
            }
            namePid(channel, file);
            return new DataDirLock(key, channel, lock);
        } catch (IOException | RuntimeException e) {
            HELD.remove(key);
            if (channel != null) {
                try {
                    channel.close();
                } catch (IOException again) {
                    e.addSuppressed(again);
                }
            }
            if (e instanceof IOException io) {
                throw new UncheckedIOException("cannot lock " + file, io);
            }
            throw (RuntimeException) e;
        }
    }

    /**
     * Writes this process's pid into the held lock file. The pid only names the holder to a
     * process refused: a file that cannot say it (a full disk, where the node must still start
     * to replay its log and serve) keeps the lock and says nothing.
     */
    private static void namePid(FileChannel channel, Path file) {
        try {
            channel.truncate(0);
            channel.write(ByteBuffer.wrap(("pid " + ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.UTF_8)), 0);
        } catch (IOException e) {
            LOG.warn("{} is held by this process but cannot name its pid ({}): a process refused the directory will not see who holds it",
                    file, e.getMessage());
        }
    }

    private static DataDirInUseException inUse(Path dir, String holder) {
        return new DataDirInUseException(dir.toAbsolutePath() + " is in use by another simdex process (" + holder
                + "); two processes on one data directory would corrupt it: stop the other one, or give this one another data directory");
    }

    /** What the lock file says of its holder ("pid N"), or that it says nothing. */
    private static String holder(Path file) {
        try {
            String s = Files.readString(file, StandardCharsets.UTF_8).strip();
            return s.isEmpty() ? "its " + FILE + " names no pid" : s;
        } catch (IOException e) {
            return "its " + FILE + " cannot be read: " + e.getMessage();
        }
    }

    /** Lets the directory go; again, nothing. */
    @Override
    public void close() {
        if (!channel.isOpen()) {
            return;
        }
        try {
            lock.release();
            channel.close();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot unlock " + FILE, e);
        } finally {
            HELD.remove(key);
        }
    }
}
