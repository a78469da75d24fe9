package io.simdex.server;

import io.simdex.core.io.FileTrees;
import io.simdex.server.store.CollectionStore;
import io.simdex.server.store.StoreSizing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.stream.Stream;

/**
 * One collection on one shard: a store per time generation, in {@code COLLECTION/g-N/}.
 * A collection without retention lives in generation 0 forever. Expiring a generation closes
 * its maps and deletes its directory: retention costs nothing per entry.
 */
final class CollectionGenerations implements AutoCloseable {
    private static final String PREFIX = "g-";

    private final Path dir;
    private final StoreSizing sizing;
    private final ConcurrentSkipListMap<Long, CollectionStore> stores = new ConcurrentSkipListMap<>();

    CollectionGenerations(Path dir, StoreSizing sizing) {
        this.dir = dir;
        this.sizing = sizing;
        if (Files.isDirectory(dir)) {
            try (Stream<Path> children = Files.list(dir)) {
                for (Path child : children.filter(p -> p.getFileName().toString().startsWith(PREFIX)).toList()) {
                    long g = Long.parseLong(child.getFileName().toString().substring(PREFIX.length()));
                    stores.put(g, CollectionStore.open(child, sizing));
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /**
     * The store of generation {@code g}, created if new: for writes. An existing store is returned
     * without taking the lock, so writers to the current generation never wait while the next one
     * is being created (seconds for a large store: the kernel zeroes every page).
     */
    CollectionStore writable(long g) {
        CollectionStore s = stores.get(g);
        return s != null ? s : create(g);
    }

    /**
     * Creates generation {@code g}'s store ahead of its first write; false if it exists, or if
     * the collection has no store at all here and {@code evenIfUnused} is false (a collection
     * nobody writes to should not take gigabytes of files).
     */
    synchronized boolean prepare(long g, boolean evenIfUnused) {
        if (stores.containsKey(g) || !evenIfUnused && stores.isEmpty()) {
            return false;
        }
        create(g);
        return true;
    }

    private synchronized CollectionStore create(long g) {
        return stores.computeIfAbsent(g, n -> CollectionStore.open(dir.resolve(PREFIX + n), sizingOf(n)));
    }

    /**
     * The sizing of new generation {@code g}: the collection's, raised to what the fullest
     * earlier generation here holds ({@link StoreSizing#atLeast}). The router's sweeper makes a
     * generation 5 minutes before it starts (at most half a generation before: SimdexService's
     * prepareLead), so the one before it holds all but those minutes of its documents.
     */
    StoreSizing sizingOf(long g) {
        StoreSizing out = sizing;
        for (CollectionStore earlier : stores.headMap(g, false).values()) {
            out = out.atLeast(earlier.buckets().entries(), earlier.docs().documents());
        }
        return out;
    }

    /** The store of generation {@code g}, or null: reads never create files. */
    CollectionStore existing(long g) {
        return stores.get(g);
    }

    /** Every existing generation at or after {@code min}, oldest first. */
    List<Map.Entry<Long, CollectionStore>> from(long min) {
        return new ArrayList<>(stores.tailMap(min, true).entrySet());
    }

    /** Closes and deletes every generation before {@code min}; returns how many. */
    synchronized int expireBefore(long min) {
        int dropped = 0;
        for (Map.Entry<Long, CollectionStore> e : new ArrayList<>(stores.headMap(min, false).entrySet())) {
            stores.remove(e.getKey());
            e.getValue().close();
            deleteTree(dir.resolve(PREFIX + e.getKey()));
            dropped++;
        }
        return dropped;
    }

    @Override
    public void close() {
        stores.values().forEach(CollectionStore::close);
        stores.clear();
    }

    private static void deleteTree(Path root) {
        try {
            FileTrees.delete(root);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete expired generation " + root, e);
        }
    }
}
