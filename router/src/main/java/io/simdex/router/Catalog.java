package io.simdex.router;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * The collections that exist, persisted as {@code collections.properties} (name = creation time
 * in ms) and rewritten atomically on each change. "default" always exists.
 */
public final class Catalog {
    public static final String DEFAULT = "default";

    private final Path file;
    private final ConcurrentSkipListMap<String, Long> collections = new ConcurrentSkipListMap<>();

    public Catalog(Path dir) {
        this.file = dir.resolve("collections.properties");
        try {
            Files.createDirectories(dir);
            if (Files.exists(file)) {
                Properties p = new Properties();
                try (Reader r = Files.newBufferedReader(file)) {
                    p.load(r);
                }
                p.forEach((k, v) -> collections.put((String) k, Long.parseLong((String) v)));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
        create(DEFAULT);
    }

    public boolean exists(String name) {
        return collections.containsKey(name);
    }

    /** Creates {@code name}; returns false if it existed. */
    public synchronized boolean create(String name) {
        if (collections.putIfAbsent(name, System.currentTimeMillis()) != null) {
            return false;
        }
        save();
        return true;
    }

    public long createdMillis(String name) {
        return collections.getOrDefault(name, 0L);
    }

    public List<String> names() {
        return new ArrayList<>(collections.keySet());
    }

    private void save() {
        Properties p = new Properties();
        for (Map.Entry<String, Long> e : collections.entrySet()) {
            p.setProperty(e.getKey(), Long.toString(e.getValue()));
        }
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        try {
            try (Writer w = Files.newBufferedWriter(tmp)) {
                p.store(w, "simdex collections: name = created (ms since epoch)");
            }
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }
}
