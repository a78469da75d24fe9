package io.simdex.server.wal;

import io.simdex.core.io.DurableFiles;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * A log's files: segments named by their number ({@code 00000000000000000001.wal}, oldest
 * first), their replay and deletion, and the forcing of the stores beside them.
 */
public final class LogFiles {
    private static final String SUFFIX = ".wal";

    private LogFiles() {
    }

    /** True when {@code dir} holds segments: the node did not close cleanly after writing with a log. */
    public static boolean hasSegments(Path dir) {
        return Files.isDirectory(dir) && !segments(dir).isEmpty();
    }

    /**
     * Hands every whole record of {@code dir}'s segments to {@code body}, oldest first; a torn
     * tail of the newest segment is skipped (see {@link RecordFrame}).
     *
     * @throws IllegalStateException when an older segment is torn: it was forced before the next began
     */
    public static void replay(Path dir, Consumer<ByteBuffer> body) {
        List<Path> segments = segments(dir);
        for (int i = 0; i < segments.size(); i++) {
            Path p = segments.get(i);
            try (FileChannel ch = FileChannel.open(p, StandardOpenOption.READ)) {
                MappedByteBuffer map = ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size());
                int end = RecordFrame.read(map, body);
                if (end < map.limit() && i < segments.size() - 1) {
                    throw new IllegalStateException(p + " is torn at byte " + end + " of " + map.limit() + " but a newer segment follows");
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read " + p, e);
            }
        }
    }

    /** Deletes every segment in {@code dir}, durably: once the stores hold what they record. */
    public static void deleteSegments(Path dir) {
        try {
            for (Path p : segments(dir)) {
                Files.delete(p);
            }
            DurableFiles.syncDirectory(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete the segments in " + dir, e);
        }
    }

    /**
     * Forces every file and directory under {@code root} but those under {@code skip}. On Linux,
     * FileChannel.force (fsync) of a file writes back all its dirty pages in the page cache,
     * those dirtied through a memory mapping (Chronicle Map's) included, since the mapping and
     * the file share the page cache. A file deleted meanwhile (an expired generation) is skipped.
     */
    public static void forceStores(Path root, Path skip) {
        try {
            Files.walkFileTree(root, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult preVisitDirectory(Path d, BasicFileAttributes attrs) {
                    return d.equals(skip) ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFile(Path f, BasicFileAttributes attrs) throws IOException {
                    force(f);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFileFailed(Path f, IOException e) throws IOException {
                    if (e instanceof NoSuchFileException) {
                        return FileVisitResult.CONTINUE;
                    }
                    throw e;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
                    if (e != null && !(e instanceof NoSuchFileException)) {
                        throw e;
                    }
                    force(d);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException("cannot force the stores under " + root, e);
        }
    }

    private static void force(Path p) throws IOException {
        try {
            DurableFiles.force(p);
        } catch (NoSuchFileException e) {
            // deleted since the walk listed it (an expired generation)
        }
    }

    /** The segment files in {@code dir}, oldest first. */
    public static List<Path> segments(Path dir) {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().endsWith(SUFFIX)).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + dir, e);
        }
    }


    static Path segment(Path dir, long number) {
        return dir.resolve(String.format("%020d%s", number, SUFFIX));
    }

    static long number(Path segment) {
        String name = segment.getFileName().toString();
        return Long.parseLong(name.substring(0, name.length() - SUFFIX.length()));
    }
}
