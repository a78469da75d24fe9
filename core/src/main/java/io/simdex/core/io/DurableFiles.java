package io.simdex.core.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * Small files replaced whole and kept across an OS crash or power loss: the new content goes to
 * {@code NAME.tmp}, which is forced to disk, renamed over {@code NAME} (atomic on POSIX file
 * systems), and then the directory is forced so that the rename itself is on disk. A reader
 * sees the old file or the new one, never a torn one, and once {@link #replace} returns the new
 * one survives a crash.
 */
public final class DurableFiles {
    private DurableFiles() {
    }

    /** Replaces {@code file} with {@code text} in UTF-8, durably (see the class comment). */
    public static void replace(Path file, String text) throws IOException {
        replace(file, text.getBytes(StandardCharsets.UTF_8));
    }

    /** Replaces {@code file} with {@code bytes}, durably (see the class comment). */
    public static void replace(Path file, byte[] bytes) throws IOException {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer buf = ByteBuffer.wrap(bytes);
            while (buf.hasRemaining()) {
                ch.write(buf);
            }
            ch.force(true);
        } catch (IOException e) {
            // A part written (a full disk) would hold the disk's room until the next replace.
            try {
                Files.deleteIfExists(tmp);
            } catch (IOException again) {
                e.addSuppressed(again);
            }
            throw e;
        }
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        syncDirectory(file.toAbsolutePath().getParent());
    }

    /**
     * Forces {@code file}'s content to disk, what was written through a memory mapping of it
     * included: on Linux the mapping and the file share the page cache, and fsync writes back
     * its dirty pages.
     */
    public static void force(Path file) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            ch.force(true);
        }
    }

    /**
     * Forces {@code dir}'s entries (files created, renamed or deleted in it) to disk: fsync of the
     * directory opened read-only, which Linux supports.
     */
    public static void syncDirectory(Path dir) throws IOException {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        }
    }
}
