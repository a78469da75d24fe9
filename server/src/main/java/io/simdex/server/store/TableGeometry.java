package io.simdex.server.store;

import io.simdex.fingerprint.BlockTables;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

/**
 * The sizes that fix a bucket table's file layout: residues per page, pages of each bucket in
 * the base map, and the entries the base map is created for. Chosen once from the expected load
 * when a collection is created, then persisted beside the maps, because files written with one
 * geometry cannot be read with another.
 *
 * <p>Pages {@code 0 .. pagesPerGeneration-1} of every bucket live in the base map, which
 * therefore holds at most {@code ownedBuckets * pagesPerGeneration} pages ({@code pagesPerMap}).
 * Later pages go to a small overflow map that grows by doubling.
 *
 * <h2>Starting small</h2>
 * A store's growing maps (base pages, ids, fingerprints, content hashes; {@link GrowingMap})
 * start with a first file of {@code firstEntries} entries, and only a store that outgrows it
 * gets a second sized for the expected load ({@link #sizes}): a collection of one document
 * costs a few hundred kilobytes a shard, not the tens of megabytes its expected load would
 * (StoreSizeTest). {@code firstEntries} 0, as a geometry file without the key reads, is a store
 * whose first files were sized for the expected load: its generations keep doubling from it.
 *
 * <h2>Sizing</h2>
 * Random fingerprints fill a bucket like a Poisson variable of mean m = expected / 65536, so
 * the base map gives each bucket about m + 2 sqrt(m) slots: about 2% of buckets spill, few
 * enough for the overflow map to stay small, while the base map wastes about 2 sqrt(m) / m of
 * its slots (13% at m = 763, i.e. 50M fingerprints). Pages hold 8..512 residues, the size that
 * fits the slot count into the fewest pages. A probe costs one Chronicle Map lookup per page:
 * at 50M, in pages of 205, those 16 lookups were 40% of Dedup's time. Larger pages cost loads
 * in the kernel instead (an append dirties the page's header and its slot, and mapped pages
 * written back are faulted again). Measured at 50M with per-page lookups (store-bench and the
 * loadtest's bulk load, batched Dedup and Query runs), 4 pages of
 * 205 / 2 of 410 / 1 of 819: bulk load 335 / 389 / 541 s, batched Dedup 23K / 46K / 45K
 * docs/s, batched Query 67K / 115K / 144K fingerprints/s. That was without entry checksums,
 * as base pages are ({@link #entryChecksums}); with them the 2 x 410 load took 505 s.
 *
 * <h2>Outgrowing the sizing</h2>
 * A collection without retention keeps its first layout however much it comes to hold. Past
 * the first overflow page (as large as a base page, for the few buckets the sizing's two
 * standard deviations did not cover) each page of a chain holds twice the one before, up to
 * {@code maxPageCapacity} ({@link #capacity}): ten times the expected load reads 4 pages a
 * bucket where fixed pages read 7, fifty times 6 where they read 32; and the full pages before
 * a chain's last hold about as many residues as the last has room for, so the disk a chain
 * takes stays within about twice what it holds. Each size is an
 * overflow map of its own, since Chronicle Map wants its values near one size. Tables created
 * with fixed pages keep them ({@code maxPageCapacity} absent from the file means
 * {@code pageCapacity}).
 */
public record TableGeometry(int pageCapacity, int pagesPerGeneration, long pagesPerMap, boolean entryChecksums, long firstEntries,
        boolean overflowChecksums, int maxPageCapacity) {
    static final String FILE = "geometry.properties";
    /** Entries of the first file of a new store's growing maps: 1,024 pages of a bucket table, ids or fingerprints. */
    static final long FIRST_ENTRIES = 1024;

    public TableGeometry {
        if (pageCapacity < 1 || pagesPerGeneration < 1 || pagesPerMap < 1 || firstEntries < 0 || maxPageCapacity < pageCapacity) {
            throw new IllegalArgumentException("bad geometry " + pageCapacity + "/" + pagesPerGeneration + "/" + pagesPerMap + "/" + firstEntries
                    + "/" + maxPageCapacity);
        }
    }

    /** A geometry of fixed pages: every page of a chain holds {@code pageCapacity}. */
    public TableGeometry(int pageCapacity, int pagesPerGeneration, long pagesPerMap, boolean entryChecksums, long firstEntries,
            boolean overflowChecksums) {
        this(pageCapacity, pagesPerGeneration, pagesPerMap, entryChecksums, firstEntries, overflowChecksums, pageCapacity);
    }

    /**
     * A geometry whose overflow pages carry entry checksums when its base pages do. Overflow
     * pages are written in the same crash-safe order as base pages, so they need none either;
     * tables created before they dropped them keep them ({@code overflowChecksums} absent from
     * the file means true), since a checksum left stale by a kill drops the whole page.
     */
    public TableGeometry(int pageCapacity, int pagesPerGeneration, long pagesPerMap, boolean entryChecksums, long firstEntries) {
        this(pageCapacity, pagesPerGeneration, pagesPerMap, entryChecksums, firstEntries, entryChecksums);
    }

    /** A geometry whose maps are sized for the expected load from the start ({@code firstEntries} 0). */
    public TableGeometry(int pageCapacity, int pagesPerGeneration, long pagesPerMap, boolean entryChecksums) {
        this(pageCapacity, pagesPerGeneration, pagesPerMap, entryChecksums, 0);
    }

    /**
     * A geometry for a new table: base pages without Chronicle Map entry checksums, since
     * BucketTable orders its in-place writes so that a crash cannot tear a page (see there).
     * Tables created before that keep their checksums ({@code entryChecksums} absent from the
     * file means true).
     */
    public TableGeometry(int pageCapacity, int pagesPerGeneration, long pagesPerMap) {
        this(pageCapacity, pagesPerGeneration, pagesPerMap, false);
    }

    /**
     * Generation sizes of a growing map of this store expected to hold {@code expected} entries:
     * a first file of {@code firstEntries} (at most {@code expected}), then {@code expected},
     * doubling; or, for a store created sized ({@code firstEntries} 0), {@code expected} doubling.
     */
    GrowingMap.Sizes sizes(long expected) {
        return firstEntries == 0 ? GrowingMap.Sizes.doubling(expected) : new GrowingMap.Sizes(Math.min(firstEntries, expected), expected);
    }

    /**
     * Residues page {@code page} of a bucket's chain holds: {@code pageCapacity} up to the first
     * overflow page ({@code pagesPerGeneration}), then twice the page before, up to
     * {@code maxPageCapacity}.
     */
    public int capacity(int page) {
        int beyond = page - pagesPerGeneration;
        if (beyond <= 0 || maxPageCapacity == pageCapacity) {
            return pageCapacity;
        }
        return (int) Math.min(maxPageCapacity, (long) pageCapacity << Math.min(beyond, Integer.SIZE));
    }

    /**
     * Size classes of the pages past the first overflow page, smallest first: class i holds
     * page {@code pagesPerGeneration + 1 + i} and, for the last class, every page after. Empty
     * for fixed pages.
     */
    public int[] grownCapacities() {
        int classes = 0;
        while (capacity(pagesPerGeneration + 1 + classes) < maxPageCapacity) {
            classes++;
        }
        int[] out = new int[maxPageCapacity == pageCapacity ? 0 : classes + 1];
        for (int i = 0; i < out.length; i++) {
            out[i] = capacity(pagesPerGeneration + 1 + i);
        }
        return out;
    }

    /**
     * Geometry for a shard expected to hold {@code expectedFingerprints} fingerprints in
     * {@code ownedBuckets} of the 4 x 65536 buckets: one page per bucket up to about 30M
     * fingerprints, two up to about 60M. Its maps start small ({@link #FIRST_ENTRIES}), and its
     * overflow pages grow up to {@link #MAX_CAPACITY} residues.
     */
    public static TableGeometry forExpected(long expectedFingerprints, int ownedBuckets) {
        double mean = Math.max(1.0, (double) expectedFingerprints / BlockTables.KEYS_PER_TABLE);
        long slots = (long) Math.ceil(mean + 2 * Math.sqrt(mean));
        long pages = Math.max(1, (slots + MAX_CAPACITY - 1) / MAX_CAPACITY);
        int capacity = (int) Math.max(MIN_CAPACITY, Math.min(MAX_CAPACITY, (slots + pages - 1) / pages));
        pages = Math.max(1, (slots + capacity - 1) / capacity);
        return new TableGeometry(capacity, (int) pages, ownedBuckets * pages, false, FIRST_ENTRIES, false, Math.max(capacity, MAX_CAPACITY));
    }

    static final int MIN_CAPACITY = 8;
    static final int MAX_CAPACITY = 512;

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
                        Long.parseLong(p.getProperty("pagesPerMap")),
                        Boolean.parseBoolean(p.getProperty("entryChecksums", "true")),
                        Long.parseLong(p.getProperty("firstEntries", "0")),
                        Boolean.parseBoolean(p.getProperty("overflowChecksums", "true")),
                        Integer.parseInt(p.getProperty("maxPageCapacity", p.getProperty("pageCapacity"))));
            }
            Properties p = new Properties();
            p.setProperty("pageCapacity", Integer.toString(fresh.pageCapacity));
            p.setProperty("pagesPerGeneration", Integer.toString(fresh.pagesPerGeneration));
            p.setProperty("pagesPerMap", Long.toString(fresh.pagesPerMap));
            p.setProperty("entryChecksums", Boolean.toString(fresh.entryChecksums));
            p.setProperty("firstEntries", Long.toString(fresh.firstEntries));
            p.setProperty("overflowChecksums", Boolean.toString(fresh.overflowChecksums));
            p.setProperty("maxPageCapacity", Integer.toString(fresh.maxPageCapacity));
            Writer w = new java.io.StringWriter();
            p.store(w, "bucket table geometry: fixed at creation, do not edit");
            io.simdex.core.io.DurableFiles.replace(file, w.toString());
            return fresh;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
