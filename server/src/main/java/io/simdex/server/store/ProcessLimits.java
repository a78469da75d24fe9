package io.simdex.server.store;

import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The process's room for another store: memory maps and open files. Every Chronicle Map file a
 * store opens takes a memory area and a file descriptor for as long as it is open, about three
 * of each per collection and shard, and more as generations are added. At its limit of memory
 * areas ({@code vm.max_map_count}, 65,530 by default) the JVM itself dies (a thread stack or a
 * heap commit cannot be mapped): the embedded default crashed at its 976th one-document
 * collection with the limit lowered to 12,000. At its open-files limit every new file, socket
 * included, fails. So a store is not opened within {@link #headroom} of either limit: the
 * request that needs it fails with {@link NoRoomException}, and the process lives on.
 *
 * <p>Reading the counts costs a listing of the process's memory areas: it is done at most
 * every {@link #REREAD_NANOS}, and at every opening once within a quarter of the limit.
 * Linux only; elsewhere nothing is checked.
 */
public final class ProcessLimits {
    private static final Path MAX_MAP_COUNT = Path.of("/proc/sys/vm/max_map_count");
    private static final Path MAPS = Path.of("/proc/self/maps");
    private static final long REREAD_NANOS = 100_000_000L;
    private static final Object LOCK = new Object();
    private static Readings last;
    private static long lastRead;

    private ProcessLimits() {
    }

    /** The counts and limits; -1 where not known. */
    record Readings(long maps, long maxMaps, long files, long maxFiles) {
    }

    /** Throws {@link NoRoomException} when the process is too near a limit to open the files of a store in {@code dir}. */
    static void requireRoomForStore(Path dir) {
        String refusal = refusal(readings());
        if (refusal != null) {
            throw new NoRoomException("cannot open the store in " + dir + ": " + refusal);
        }
    }

    /** Why a store cannot be opened with these readings, or null. */
    static String refusal(Readings r) {
        if (r.maxMaps() > 0 && r.maps() > r.maxMaps() - headroom(r.maxMaps())) {
            return "the process has " + r.maps() + " memory maps of its limit of " + r.maxMaps() + " (vm.max_map_count), and the JVM"
                    + " dies at it: raise vm.max_map_count (sysctl), or keep fewer collections and time generations";
        }
        if (r.maxFiles() > 0 && r.files() > r.maxFiles() - headroom(r.maxFiles())) {
            return "the process has " + r.files() + " files open of its limit of " + r.maxFiles() + ": raise its open-files limit"
                    + " (LimitNOFILE, ulimit -n), or keep fewer collections and time generations";
        }
        return null;
    }

    /** What a store leaves of a limit: 5% of it, at least 2,000 (a quarter of a small one). */
    static long headroom(long limit) {
        return Math.max(limit / 20, Math.min(2_000, limit / 4));
    }

    private static Readings readings() {
        synchronized (LOCK) {
            long now = System.nanoTime();
            if (last == null || now - lastRead >= REREAD_NANOS || near(last)) {
                last = read();
                lastRead = now;
            }
            return last;
        }
    }

    /** Whether a count is within a quarter of its limit: then every opening reads again. */
    private static boolean near(Readings r) {
        return (r.maxMaps() > 0 && r.maps() > r.maxMaps() * 3 / 4) || (r.maxFiles() > 0 && r.files() > r.maxFiles() * 3 / 4);
    }

    private static Readings read() {
        long maps = -1;
        long maxMaps = -1;
        try {
            try (InputStream in = Files.newInputStream(MAX_MAP_COUNT)) {
                // A stream, not Files.readString: that read one byte of this file ("6" of 65530).
                maxMaps = Long.parseLong(new String(in.readAllBytes(), StandardCharsets.US_ASCII).strip());
            }
            maps = lines(MAPS);
        } catch (IOException | RuntimeException e) {
            // not Linux, or /proc not readable: not checked
        }
        long files = -1;
        long maxFiles = -1;
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.UnixOperatingSystemMXBean os) {
            files = os.getOpenFileDescriptorCount();
            maxFiles = os.getMaxFileDescriptorCount();
        }
        return new Readings(maps, maxMaps, files, maxFiles);
    }

    private static long lines(Path file) throws IOException {
        long n = 0;
        byte[] buf = new byte[64 * 1024];
        try (InputStream in = Files.newInputStream(file)) {
            for (int r; (r = in.read(buf)) > 0; ) {
                for (int i = 0; i < r; i++) {
                    if (buf[i] == '\n') {
                        n++;
                    }
                }
            }
        }
        return n;
    }
}
