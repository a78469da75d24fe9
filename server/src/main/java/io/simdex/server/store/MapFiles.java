package io.simdex.server.store;

import net.openhft.chronicle.hash.ChronicleHashCorruption;
import net.openhft.chronicle.hash.impl.VanillaChronicleHash;
import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.ChronicleMapBuilder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * Opens persisted Chronicle Map files, recovering them when the last run did not close them,
 * and leaves their closing to the store that opened them ({@link #leaveExitHook}).
 *
 * <p>Chronicle Map keeps segment locks and counters inside the file; a process killed with
 * SIGKILL can leave a lock held or a counter stale. {@code recoverPersistedTo} repairs that, but
 * needs exclusive access, which a shard has: one shard process owns its data directory.
 */
public final class MapFiles {
    /** Written when a store closed cleanly; its absence at open means "recover". */
    public static final String CLEAN_MARKER = ".clean";
    private static final Logger LOG = LoggerFactory.getLogger(MapFiles.class);
    /** {@code ChronicleHashCloseOnExitHook.remove}, package-private in Chronicle Map: see {@link #leaveExitHook}. */
    private static final Method EXIT_HOOK_REMOVE;

    static {
        try {
            EXIT_HOOK_REMOVE = Class.forName("net.openhft.chronicle.hash.impl.ChronicleHashCloseOnExitHook")
                    .getDeclaredMethod("remove", VanillaChronicleHash.class);
            EXIT_HOOK_REMOVE.setAccessible(true);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private MapFiles() {
    }

    /** Whether this process has created a persisted map yet (see {@link #loadChronicle}). */
    private static final java.util.concurrent.atomic.AtomicBoolean LOADED = new java.util.concurrent.atomic.AtomicBoolean();

    /**
     * Creates and deletes a small persisted map in {@code dir} once per process, so that a
     * server pays Chronicle Map's start-up cost when it starts, not within its first write's
     * deadline (class loading and Chronicle's set-up; a fresh cluster's first write timed out
     * when this also compiled the map header's implementation with javac, which the jar now
     * ships compiled: {@code net.openhft.chronicle.hash.VanillaGlobalMutableState$$Native}).
     */
    public static void loadChronicle(Path dir) {
        if (!LOADED.compareAndSet(false, true)) {
            return;
        }
        Path file = dir.resolve(".chronicle-load.cm");
        try {
            Files.createDirectories(dir);
            try (ChronicleMap<Long, Long> warm = ChronicleMap.of(Long.class, Long.class).entries(16).createPersistedTo(file.toFile())) {
                warm.put(1L, 1L);
            }
            Files.deleteIfExists(file);
        } catch (IOException | RuntimeException e) {
            IOException noSpace = DiskSpace.noSpace(e);
            if (noSpace == null) {
                throw e instanceof IOException io ? new UncheckedIOException("cannot create " + file, io) : (RuntimeException) e;
            }
            // A full disk must not keep the node from starting: it replays its log (which frees
            // the log's files) and serves reads; the first store it opens pays the cost instead.
            deleteQuietly(file, e);
            LOG.warn("cannot make {} to load Chronicle Map ahead of the first write: {}", file, noSpace.getMessage());
        }
    }

    /** Runs before a map file is made: tests throw here what a full disk throws ({@link DiskSpace}). */
    static volatile FileCheck beforeMake = file -> { };

    /** A check of a file about to be made. */
    interface FileCheck {
        void check(Path file) throws IOException;
    }

    static <K, V> ChronicleMap<K, V> open(ChronicleMapBuilder<K, V> builder, Path file, boolean clean) {
        builder.skipCloseOnExitHook(true);
        ChronicleMap<K, V> map;
        boolean existed = Files.exists(file);
        long size = existed ? sizeOf(file) : 0;
        try {
            if (existed && !clean) {
                map = builder.recoverPersistedTo(file.toFile(), true, c -> logCorruption(file, c));
            } else {
                if (!existed) {
                    beforeMake.check(file);
                }
                map = builder.createPersistedTo(file.toFile());
            }
        } catch (IOException | RuntimeException e) {
            if (!existed) {
                // A file whose making failed (no room to allocate it, say) is left half made,
                // and the next open of it waits minutes for it to become ready.
                deleteQuietly(file, e);
            }
            throw e instanceof IOException io ? new UncheckedIOException("cannot open " + file, io) : (RuntimeException) e;
        }
        try {
            leaveExitHook(map);
        } catch (RuntimeException e) {
            map.close();
            throw e;
        }
        if (existed && sizeOf(file) > size) {
            // Chronicle Map allocates a file whole and extends it as it writes, so a map that
            // needs more than its file held on opening was cut short outside this process (a
            // disk fault, a copy that failed): it reads the part lost as empty, and says nothing.
            LOG.error("{} was {} bytes, its map takes {}: the file was cut short, and the entries it held past its end are lost;"
                    + " restore the store from a copy", file, size, sizeOf(file));
        }
        return map;
    }

    private static long sizeOf(Path file) {
        try {
            return Files.size(file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the size of " + file, e);
        }
    }

    /** Deletes {@code file}, a failure to delete it suppressed in {@code cause}. */
    static void deleteQuietly(Path file, Exception cause) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            cause.addSuppressed(e);
        }
    }

    /**
     * Takes {@code map} out of the JVM shutdown hook by which Chronicle Map closes every map it
     * opened. That hook runs beside the server's own: on SIGTERM it unmapped bucket pages that
     * handler threads were still writing in place (the JVM died of SIGSEGV), and closed id maps
     * under a BulkLoad, whose bound ids then lost their bucket entries. The server closes its
     * stores itself, after its calls and handlers have finished (CollectionStore#close), so no
     * map needs the hook. The builder's {@code skipCloseOnExitHook} covers only a file it
     * creates: a map opened from an existing file is registered regardless (Chronicle Map
     * issue #213, open in 3.25), hence the hook's own remove, which the skipped ones pass too.
     */
    static void leaveExitHook(ChronicleMap<?, ?> map) {
        try {
            EXIT_HOOK_REMOVE.invoke(null, map);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        } catch (InvocationTargetException e) {
            throw new IllegalStateException("cannot take " + map.file() + " out of Chronicle Map's exit hook", e.getCause());
        }
    }

    /**
     * Recovery repairs counters a kill left stale (expected after any kill) and drops entries it
     * finds torn, a checksum wrong or a size impossible, which loses data: those are warnings.
     */
    private static void logCorruption(Path file, ChronicleHashCorruption c) {
        String m = c.message();
        boolean counter = m.startsWith("wrong ") || m.startsWith("Wrong number of entries counter") || m.startsWith("stored ");
        if (counter) {
            LOG.info("recovering {}: {}", file, m);
        } else {
            LOG.warn("recovering {}: {}", file, m, c.exception());
        }
    }

    /**
     * True when the store in {@code dir} is {@code fresh} or was closed cleanly; consumes the
     * marker, so a crash from now on is seen. A store that was not is recovered, which this says
     * once for the store (Chronicle Map's own warnings, a pair per file, speak of exclusive
     * access, which the data directory's lock gives).
     */
    static boolean takeCleanMarker(Path dir, boolean fresh) {
        boolean clean;
        try {
            clean = Files.deleteIfExists(dir.resolve(CLEAN_MARKER));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (!clean && !fresh) {
            LOG.info("{} was not closed cleanly (killed, its machine stopped, or copied while open): recovering its map files", dir);
        }
        return clean || fresh;
    }

    /**
     * Deletes every clean-close marker under {@code root}, so that each store opened next is
     * recovered: after an OS crash a marker can be back (its deletion at open never reached the
     * disk) on a store written to since.
     */
    public static void forgetCleanCloses(Path root) {
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path p : paths.filter(p -> p.getFileName().toString().equals(CLEAN_MARKER)).toList()) {
                Files.delete(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot remove the clean-close markers under " + root, e);
        }
    }

    /**
     * Marks {@code dir} closed cleanly. The marker is empty, so it needs no room on the disk but
     * its name: a full disk refused the text it held, and the close of every store failed, so
     * the node could not even replay its log at start. One that cannot be made is only a cost:
     * the next open recovers the store.
     */
    static void putCleanMarker(Path dir) {
        Path marker = dir.resolve(CLEAN_MARKER);
        try {
            Files.write(marker, new byte[0]);
        } catch (IOException e) {
            LOG.warn("cannot mark {} closed cleanly ({}): its next open recovers it", dir, e.getMessage());
        }
    }
}
