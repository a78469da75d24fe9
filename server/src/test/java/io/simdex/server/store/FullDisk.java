package io.simdex.server.store;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The data disk full, for tests: while on, every map file the stores try to make fails as the
 * kernel fails it (ENOSPC), after leaving the file half made as Chronicle Map does when its
 * allocation fails. Closing it restores file making; every store must have given up its
 * shortage by then (they retry within a second of a refused write).
 */
public final class FullDisk implements AutoCloseable {
    private volatile boolean full = true;

    private FullDisk() {
    }

    /** From now on, until {@link #free}, no map file can be made. */
    public static FullDisk fill() {
        FullDisk disk = new FullDisk();
        MapFiles.beforeMake = file -> {
            if (disk.full) {
                Files.write(file, new byte[4096]); // half made: no header, never ready
                throw new IOException("No space left on device");
            }
        };
        return disk;
    }

    /** Files can be made again. */
    public void free() {
        full = false;
    }

    @Override
    public void close() {
        MapFiles.beforeMake = file -> { };
    }

    /** Whether a file under {@code dir} is named {@code name} (tests look for files that should not be there). */
    public static boolean holds(Path dir, String name) throws IOException {
        try (var files = Files.walk(dir)) {
            return files.anyMatch(f -> f.getFileName().toString().equals(name));
        }
    }
}
