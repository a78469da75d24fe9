package io.simdex.core.io;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;

/**
 * What tells a file that changed from one that did not without reading it: its modification time,
 * size and identity (inode), so a file replaced by {@code mv}, or a symlink moved to another,
 * counts as changed even within one tick of the clock. For files read again when they change
 * (auth files, TLS certificates).
 */
public record FileStamp(FileTime modified, long size, Object fileKey) {
    /** A file that cannot be read: equal only to itself. */
    public static final FileStamp MISSING = new FileStamp(null, -1, null);

    /** The stamp of {@code file} now, or {@link #MISSING}. */
    public static FileStamp of(Path file) {
        try {
            BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class);
            return new FileStamp(a.lastModifiedTime(), a.size(), a.fileKey());
        } catch (IOException e) {
            return MISSING;
        }
    }
}
