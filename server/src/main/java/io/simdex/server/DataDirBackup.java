package io.simdex.server;

import io.simdex.core.io.DurableFiles;
import io.simdex.core.io.FileTrees;
import io.simdex.server.store.MapFiles;
import io.simdex.server.wal.LogFiles;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * A backup of a data directory, taken by another process while the server runs or not.
 *
 * <p>A shard directory no process holds ({@link DataDirLock}, held here for the copy) is copied
 * as it is: the copy is exact. One a running server holds must have its write-ahead log
 * ({@code --durability fsync}): the copy is then what an OS crash at its end would leave, and a
 * server started on it recovers the maps and replays the log, as after that crash. Why that
 * holds: the copy first notes the oldest log segment; every change applied before then is in
 * the page cache the map files are read from, and every change after it has its record in that
 * segment or a later one, which are copied after the maps (from the same page cache, so with
 * every record acknowledged by then). A checkpoint that deletes the noted segment during the
 * copy, or a collection made or deleted meanwhile (the catalog is compared before and after),
 * starts the copy again. Without the log a running server's map files are copied while written,
 * with nothing to repair them, so that is refused.
 *
 * <p>Map files are sparse (laid out for their expected entries, filled as they come), and the
 * copy keeps them so: blocks of zeros are skipped, not written. Every file and directory copied
 * is forced to disk before the copy reports done.
 */
public final class DataDirBackup {
    /** Attempts before giving up on a directory that keeps changing under the copy. */
    static final int ATTEMPTS = 5;
    private static final String CATALOG = "router/collections.json";
    /** Files a copy leaves out: the lock, the clean-close marker (only an exact copy may say so), scratch files. */
    private static final Set<String> TRANSIENT = Set.of(DataDirLock.FILE, ".chronicle-load.cm", "room.probe");
    private static final int BLOCK = 4096;

    /** What a backup copied: files and bytes written, attempts made, and the shard directories copied while a server held them. */
    public record Copied(int files, long bytes, int attempts, int liveShards) {
    }

    private DataDirBackup() {
    }

    /**
     * Copies {@code data} to {@code to}, which must not exist or be empty.
     *
     * @throws IllegalStateException when a running server holds a shard directory without a
     *                               write-ahead log, or the directory kept changing for {@link #ATTEMPTS} attempts
     * @throws UncheckedIOException  when a file cannot be read or written
     */
    public static Copied copy(Path data, Path to) {
        return copy(data, to, () -> {
        });
    }

    /** As {@link #copy(Path, Path)}, running {@code afterMaps} between the copy of the maps and that of the logs (tests). */
    static Copied copy(Path data, Path to, Runnable afterMaps) {
        if (!Files.isDirectory(data)) {
            throw new IllegalArgumentException(data + " is not a directory");
        }
        if (to.toAbsolutePath().normalize().startsWith(data.toAbsolutePath().normalize())) {
            throw new IllegalArgumentException(to + " is inside " + data + ": a backup goes elsewhere");
        }
        requireEmpty(to);
        List<Path> shards = shardDirs(data);
        List<DataDirLock> held = new ArrayList<>();
        List<Path> live = new ArrayList<>();
        try {
            for (Path shard : shards) {
                try {
                    held.add(DataDirLock.take(shard));
                } catch (DataDirInUseException e) {
                    if (!LogFiles.hasSegments(shard.resolve(ShardLog.DIR))) {
                        throw new IllegalStateException(shard + " is in use by a running server without a write-ahead log (--durability"
                                + " process): its map files cannot be copied consistently while it writes them; stop the server, or run it"
                                + " with --durability fsync");
                    }
                    live.add(shard);
                }
            }
            for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
                if (attempt > 1) {
                    deleteContents(to);
                }
                Copied c = attempt(data, to, live, attempt, attempt == 1 ? afterMaps : () -> {
                });
                if (c != null) {
                    return c;
                }
            }
            throw new IllegalStateException("the data directory kept changing under the copy (a log checkpoint, or a collection made or"
                    + " deleted, during each of " + ATTEMPTS + " attempts): try again when it is written less");
        } finally {
            held.forEach(DataDirLock::close);
        }
    }

    /** One copy; null if the directory changed under it in a way that leaves the copy short. */
    private static Copied attempt(Path data, Path to, List<Path> live, int attempt, Runnable afterMaps) {
        Path catalog = data.resolve(CATALOG);
        byte[] catalogBefore = readIfExists(catalog);
        Map<Path, Path> oldestSegment = new LinkedHashMap<>();
        for (Path shard : live) {
            List<Path> segments = LogFiles.segments(shard.resolve(ShardLog.DIR));
            if (segments.isEmpty()) {
                return null; // its server stopped meanwhile, leaving no log: a new attempt copies it as stopped
            }
            oldestSegment.put(shard, segments.get(0));
        }
        Counter n = new Counter();
        try (Stream<Path> all = Files.walk(data)) {
            for (Path p : all.sorted().toList()) {
                Path rel = data.relativize(p);
                Path liveShard = live.stream().filter(p::startsWith).findFirst().orElse(null);
                String name = p.getFileName().toString();
                boolean skipped = TRANSIENT.contains(name) || p.equals(catalog) || liveShard != null
                        && (p.startsWith(liveShard.resolve(ShardLog.DIR)) || name.equals(MapFiles.CLEAN_MARKER));
                if (skipped) {
                    continue;
                }
                if (Files.isDirectory(p)) {
                    Files.createDirectories(to.resolve(rel.toString()));
                } else if (!copyFile(p, to.resolve(rel.toString()), n) && liveShard == null) {
                    throw new NoSuchFileException(p.toString(), null, "deleted while copied from a directory no server holds");
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot copy " + data + " to " + to + ": " + e.getMessage(), e);
        } catch (UncheckedIOException e) {
            if (e.getCause() instanceof NoSuchFileException && !live.isEmpty()) {
                return null; // a directory deleted under the walk (an expired generation, a collection)
            }
            throw e;
        }
        afterMaps.run();
        try {
            for (Map.Entry<Path, Path> e : oldestSegment.entrySet()) {
                Path log = e.getKey().resolve(ShardLog.DIR);
                List<Path> segments = LogFiles.segments(log);
                if (!segments.contains(e.getValue())) {
                    return null; // a checkpoint deleted records the maps may lack
                }
                Path copyOfLog = Files.createDirectories(to.resolve(data.relativize(log).toString()));
                for (Path segment : segments) {
                    if (!copyFile(segment, copyOfLog.resolve(segment.getFileName().toString()), n)) {
                        return null;
                    }
                }
            }
            byte[] catalogAfter = readIfExists(catalog);
            if (!Arrays.equals(catalogBefore, catalogAfter)) {
                return null;
            }
            if (catalogAfter != null) {
                Path copy = to.resolve(CATALOG);
                Files.createDirectories(copy.getParent());
                DurableFiles.replace(copy, catalogAfter);
                n.file(catalogAfter.length);
            }
            syncTree(to);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot copy " + data + " to " + to + ": " + e.getMessage(), e);
        }
        return new Copied(n.files, n.bytes, attempt, live.size());
    }

    /** The shard directories under {@code data}: those a server has locked at some time (they hold the lock file). */
    private static List<Path> shardDirs(Path data) {
        try (Stream<Path> all = Files.walk(data, 3)) {
            return all.filter(p -> p.getFileName().toString().equals(DataDirLock.FILE)).map(Path::getParent).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + data, e);
        }
    }

    /**
     * Copies {@code from} to {@code to}, leaving blocks of zeros unwritten (sparse), forced;
     * false if {@code from} is gone.
     */
    private static boolean copyFile(Path from, Path to, Counter n) throws IOException {
        try (FileChannel in = FileChannel.open(from, StandardOpenOption.READ);
             FileChannel out = FileChannel.open(to, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            ByteBuffer buf = ByteBuffer.allocate(1 << 20);
            long at = 0;
            long written = 0;
            int read;
            while ((read = in.read(buf.clear(), at)) > 0) {
                for (int b = 0; b < read; b += BLOCK) {
                    int len = Math.min(BLOCK, read - b);
                    if (!zeros(buf, b, len)) {
                        out.write(buf.duplicate().position(b).limit(b + len), at + b);
                        written += len;
                    }
                }
                at += read;
            }
            if (out.size() < at) {
                out.write(ByteBuffer.allocate(1), at - 1); // the file's length, past a tail of zeros not written
            }
            out.force(true);
            n.file(written);
            return true;
        } catch (NoSuchFileException e) {
            if (e.getFile() != null && e.getFile().equals(from.toString())) {
                return false;
            }
            throw e;
        }
    }

    private static boolean zeros(ByteBuffer buf, int from, int len) {
        int i = from;
        int end = from + len;
        for (; i + Long.BYTES <= end; i += Long.BYTES) {
            if (buf.getLong(i) != 0) {
                return false;
            }
        }
        for (; i < end; i++) {
            if (buf.get(i) != 0) {
                return false;
            }
        }
        return true;
    }

    private static byte[] readIfExists(Path file) {
        try {
            return Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            return null;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }

    private static void requireEmpty(Path to) {
        if (Files.exists(to)) {
            try (Stream<Path> s = Files.list(to)) {
                if (s.findAny().isPresent()) {
                    throw new IllegalArgumentException(to + " is not empty: a backup goes to a new or empty directory");
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot list " + to, e);
            }
        }
    }

    private static void deleteContents(Path dir) {
        try {
            FileTrees.clear(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot clear " + dir + " for another attempt", e);
        }
    }

    /** Forces every directory under {@code root} (the files were forced as they were written). */
    private static void syncTree(Path root) throws IOException {
        try (Stream<Path> all = Files.walk(root)) {
            for (Path p : all.filter(Files::isDirectory).toList()) {
                DurableFiles.syncDirectory(p);
            }
        }
        DurableFiles.syncDirectory(root.toAbsolutePath().getParent());
    }

    private static final class Counter {
        int files;
        long bytes;

        void file(long written) {
            files++;
            bytes += written;
        }
    }
}
