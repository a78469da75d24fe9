package io.simdex.core.io;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/** Directory trees removed whole: expired generations, dropped URL jobs, a backup started again. */
public final class FileTrees {
    private FileTrees() {
    }

    /** Removes {@code root} and everything under it; nothing when it does not exist. */
    public static void delete(Path root) throws IOException {
        for (Path p : deepestFirst(root)) {
            Files.delete(p);
        }
    }

    /** Removes everything under the directory {@code dir}, keeping it. */
    public static void clear(Path dir) throws IOException {
        for (Path p : deepestFirst(dir)) {
            if (!p.equals(dir)) {
                Files.delete(p);
            }
        }
    }

    /** {@code root} and what is under it, each entry before the directory that holds it. */
    private static List<Path> deepestFirst(Path root) throws IOException {
        try (Stream<Path> paths = Files.walk(root)) {
            return paths.sorted(Comparator.reverseOrder()).toList();
        } catch (NoSuchFileException e) {
            if (e.getFile() != null && Path.of(e.getFile()).equals(root)) {
                return List.of();
            }
            throw e;
        }
    }
}
