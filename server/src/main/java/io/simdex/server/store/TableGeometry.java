package io.simdex.server.store;

import io.simdex.core.BlockTables;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

/**
 * The sizes that fix a bucket table's file layout: residues per page, pages of each bucket per
 * map generation, and the entries each generation's map is created for. Chosen once from the
 * expected load when a collection is created, then persisted beside the maps, because files
 * written with one geometry cannot be read with another.
 *
 * <p>Page {@code p} of every bucket lives in generation {@code p / pagesPerGeneration}. A
 * generation therefore holds at most {@code ownedBuckets * pagesPerGeneration} pages: that is
 * its exact capacity, so no map can overflow; a bucket that outgrows it spills into the next
 * generation, a new map file.
 */
public record TableGeometry(int pageCapacity, int pagesPerGeneration, long pagesPerMap) {
    static final String FILE = "geometry.properties";

    public TableGeometry {
        if (pageCapacity < 1 || pagesPerGeneration < 1 || pagesPerMap < 1) {
            throw new IllegalArgumentException("bad geometry " + pageCapacity + "/" + pagesPerGeneration + "/" + pagesPerMap);
        }
    }

    /**
     * Geometry for a shard expected to hold {@code expectedFingerprints} fingerprints in
     * {@code ownedBuckets} of the 4 x 65536 buckets. Pages hold about the mean bucket size,
     * between 16 and 64 residues: small pages waste little when buckets are small, and at
     * tens of millions a bucket is a handful of 64-residue pages.
     */
    public static TableGeometry forExpected(long expectedFingerprints, int ownedBuckets) {
        long perBucket = Math.max(1, expectedFingerprints / BlockTables.KEYS_PER_TABLE);
        int capacity = (int) Math.min(64, Math.max(16, Long.highestOneBit(perBucket)));
        int pages = (int) Math.max(1, (perBucket + capacity - 1) / capacity);
        return new TableGeometry(capacity, pages, (long) ownedBuckets * pages);
    }

    static TableGeometry loadOrStore(Path dir, TableGeometry fresh) {
        Path file = dir.resolve(FILE);
        try {
            if (Files.exists(file)) {
                Properties p = new Properties();
                try (Reader r = Files.newBufferedReader(file)) {
                    p.load(r);
                }
                return new TableGeometry(Integer.parseInt(p.getProperty("pageCapacity")),
                        Integer.parseInt(p.getProperty("pagesPerGeneration")),
                        Long.parseLong(p.getProperty("pagesPerMap")));
            }
            Properties p = new Properties();
            p.setProperty("pageCapacity", Integer.toString(fresh.pageCapacity));
            p.setProperty("pagesPerGeneration", Integer.toString(fresh.pagesPerGeneration));
            p.setProperty("pagesPerMap", Long.toString(fresh.pagesPerMap));
            Path tmp = dir.resolve(FILE + ".tmp");
            try (Writer w = Files.newBufferedWriter(tmp)) {
                p.store(w, "bucket table geometry: fixed at creation, do not edit");
            }
            Files.move(tmp, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            return fresh;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
