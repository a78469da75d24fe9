package io.simdex.server.store;

import io.simdex.fingerprint.BlockTables;
import net.openhft.chronicle.hash.ChecksumEntry;
import net.openhft.chronicle.hash.Data;
import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.ExternalMapQueryContext;
import net.openhft.chronicle.map.MapEntry;

import java.io.Closeable;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.file.Path;

/**
 * Where the pages of every (table, block) bucket lie: pages 0 .. K-1 in the base map
 * {@code buckets-G.cm} (K from {@link TableGeometry}; a small first file, then one for every
 * owned bucket's K pages: {@link TableGeometry#sizes}), page K in the overflow map
 * {@code overflow-G.cm}, created when the first bucket the sizing did not foresee spills, and
 * later pages, which grow ({@link TableGeometry#capacity}), in a map per size,
 * {@code pagesC-G.cm} for pages of C residues (tables of fixed pages keep them all in the
 * overflow map). All are {@link GrowingMap}s of fixed-size {@link PageLayout} values keyed by
 * {@link #pageKey}, and every page, base or overflow, is read and written in place: this class
 * is the one place that tells the maps apart; {@link BucketTable} walks a bucket's chain of
 * pages without knowing which map holds each.
 *
 * <h2>Addresses</h2>
 * {@link #address} answers where a page lies in its mapped file. Pages' addresses are read
 * with the maps when they are opened, and a new page's is remembered from its first lookup
 * ({@link #addresses}): a Chronicle Map lookup (hash the key, lock the segment, walk its hash
 * slots, unlock) was a third of the embedded server's CPU for a unary Query at 10M stored, more
 * than the scan of the page itself; store-bench at 10M went from 0.54-0.61 of the ideal index's
 * rate to 0.84-0.96 without it (store-bench, loadtest REPORT).
 * A base page found missing is remembered too ({@link #MISSING}) until {@link #create} makes
 * it: probes to distance 7 read each table's 16 one-bit-neighbour buckets, many of them empty
 * below millions stored, and each miss was a map lookup. Which buckets have a page 0 at all is
 * known without either ({@link #heads}, 32 KB, read from the base map's keys at open): a probe of
 * an empty bucket reads one bit, where it read a slot of the address array and, the first
 * time, looked the bucket up in the map. Short texts' probes read 68 buckets; at 20,000 stored
 * most are empty, and first lookups of empty buckets were 4 of 5 map lookups and a fifth of the
 * CPU of a 20-word text's Dedup (dedup-cpu, JFR).
 * Overflow pages' addresses are remembered once found, a bucket's first in a flat array
 * ({@link #firstOverflow}) and later ones in {@link #overflowAddresses}: text fingerprints are
 * not uniform, so the buckets near a cluster of texts spill far past the sizing's Poisson
 * estimate, and every probe of one paid a map lookup per overflow page (most of a text Dedup's
 * probe time in DedupTextBenchmark). A store past the load it was sized for has a first
 * overflow page in most buckets, and finding its address through the per-bucket arrays was one
 * more cache miss a probe waited for: 13% of the batched Query's samples at 13.5M in a store
 * sized for 10M (JFR). Writes look pages up, newest generation first (a base map has two
 * generations once past its first file). An entry of a fixed-size value stays where it is
 * until it is removed or its map is closed, and only the bucket's writers (holding
 * BucketTable's stripe write lock) remove a page, forgetting its address first; BucketTable
 * closes this only under every stripe's write lock.
 *
 * <h2>Checksums</h2>
 * Pages carry Chronicle Map entry checksums only in tables created with them
 * ({@link TableGeometry#entryChecksums} for base pages, {@link TableGeometry#overflowChecksums}
 * for overflow pages). {@link #written} keeps them current after an in-place write; a kill
 * between the write and that update still loses the page to recovery, which is why new tables
 * have none.
 */
final class BucketPages implements Closeable {
    private static final VarHandle ADDRESS = MethodHandles.arrayElementVarHandle(long[].class);
    private static final VarHandle CHAIN = MethodHandles.arrayElementVarHandle(long[][].class);
    private static final VarHandle OVERFLOW_ADDRESSES;
    private static final VarHandle FIRST_OVERFLOW;
    /** An {@link #addresses} slot of a base page looked up and not found: no mapped page lies at the top of the address space. */
    private static final long MISSING = -1L;
    private static final int CHUNK_BITS = 10;
    private static final int CHUNK_SLOTS = 1 << CHUNK_BITS;

    private final int pagesPerGeneration;
    /**
     * Bit {@code bucketKey} is set when the bucket's page 0 exists: set after {@link #create}
     * stores it and cleared before {@link #remove} drops it, both under the bucket's stripe write
     * lock, so a probe under the read lock sees the bit and the page agree. Buckets of different
     * stripes share a word, hence the atomic updates.
     */
    private final long[] heads = new long[(BlockTables.TABLES << BlockTables.BLOCK_BITS) >>> 6];
    /** Residues stored in all pages when the maps were opened. */
    private final long entriesAtOpen;
    private final boolean baseChecksums;
    private final boolean overflowChecksums;
    private final GrowingMap<Long, byte[]> base;
    private final GrowingMap<Long, byte[]> overflow;
    /** Pages past page K by size class ({@link TableGeometry#grownCapacities}); empty for fixed pages. */
    private final GrowingMap<Long, byte[]>[] grown;
    /**
     * Off-heap address of base page {@code bucketKey * pagesPerGeneration + page}, {@link #MISSING}
     * when looked up and absent, or 0 when not looked up yet or created or removed since. Read
     * and written under the bucket's stripe lock, opaque so that a long is never torn (probes of
     * one stripe share its read lock and may both fill a slot). In chunks of
     * {@link #CHUNK_SLOTS}, each made when a slot of it is first written: a collection holding
     * a few documents keeps a few chunks, where one array took 2 MB of heap per shard (a G1
     * humongous object, 3 MB of regions), and fifty one-document collections of the embedded
     * default held 1 GB.
     */
    private final long[][] addresses;
    /**
     * By bucket key, the addresses of the bucket's overflow pages after the first (element
     * {@code page - pagesPerGeneration}, 0 when not known), or null; the outer array exists once
     * a bucket spills twice. Filled by probes under the stripe's read lock, which may race to grow a bucket's
     * array and lose a fill (it is looked up again); cleared by writers under the write lock,
     * which no probe of the bucket holds meanwhile, so a removed page's address is never read.
     */
    private volatile long[][] overflowAddresses;
    /**
     * By bucket key, the address of the bucket's first overflow page, 0 when not known; null
     * until a page spills, so a store that never outgrows its sizing keeps no such array (2 MB
     * a table). Filled and cleared as {@link #overflowAddresses}' elements are.
     */
    private volatile long[] firstOverflow;

    static {
        try {
            OVERFLOW_ADDRESSES = MethodHandles.lookup().findVarHandle(BucketPages.class, "overflowAddresses", long[][].class);
            FIRST_OVERFLOW = MethodHandles.lookup().findVarHandle(BucketPages.class, "firstOverflow", long[].class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    BucketPages(Path dir, TableGeometry geometry, boolean clean) {
        this.pagesPerGeneration = geometry.pagesPerGeneration();
        this.baseChecksums = geometry.entryChecksums();
        this.overflowChecksums = geometry.overflowChecksums();
        this.addresses = new long[(BlockTables.TABLES << BlockTables.BLOCK_BITS) * pagesPerGeneration / CHUNK_SLOTS][];
        int pageBytes = PageLayout.pageBytes(geometry.pageCapacity());
        // put and remove return the previous page (not null, as they could for a plain map):
        // GrowingMap counts a generation's entries by them.
        // At most pagesPerMap base pages (pagesPerGeneration of each owned bucket): the map's
        // second generation holds them all, and needs no third made ahead (made at 95% of the
        // second, it took as much disk again as the tables of a store at its expected size). A
        // shard that comes to own more buckets than it was sized for, after a rebalance, gets
        // the third when the second is full, made then.
        base = new GrowingMap<>(dir, "buckets", geometry.sizes(geometry.pagesPerMap()).atMost(geometry.pagesPerMap()),
                n -> ChronicleMap.of(Long.class, byte[].class).entries(n).constantValueSizeBySample(new byte[pageBytes])
                        .checksumEntries(geometry.entryChecksums()), clean);
        overflow = overflowMap(dir, "overflow", geometry.sizes(Math.max(1024, geometry.pagesPerMap() / 16)), pageBytes,
                geometry.overflowChecksums(), clean);
        // A bucket has at most one page of each size but the largest. Each size's map starts
        // with a file of the overflow map's first bytes, for the few buckets texts crowd (1,024
        // pages of each size made dedup-cpu's 20,000 300-word texts take 55 MB instead of 26),
        // then one for every owned bucket, the most it can need: a store grown to ten times its
        // sizing has a page of the first sizes in nearly every bucket, and doubling from the
        // small file took 2.2x the bytes of those pages (tables of 651 MB, against 421 MB in
        // fixed pages and 397 MB so).
        int[] capacities = geometry.grownCapacities();
        long owned = Math.max(1, geometry.pagesPerMap() / geometry.pagesPerGeneration());
        @SuppressWarnings("unchecked")
        GrowingMap<Long, byte[]>[] maps = new GrowingMap[capacities.length];
        for (int i = 0; i < capacities.length; i++) {
            long first = Math.max(16, TableGeometry.FIRST_ENTRIES * geometry.pageCapacity() / capacities[i]);
            GrowingMap.Sizes sizes = new GrowingMap.Sizes(Math.min(first, owned), owned);
            maps[i] = overflowMap(dir, "pages" + capacities[i], i < capacities.length - 1 ? sizes.atMost(owned) : sizes,
                    PageLayout.pageBytes(capacities[i]), geometry.overflowChecksums(), clean);
        }
        grown = maps;
        // Every page's address is remembered as the maps are read: a node that restarted would
        // otherwise look each page up on its first probe, and a store grown to ten times its
        // sizing has four pages a bucket. Older generations first, so a newer one's page wins.
        long[] residues = {0};
        forEachPage(base, (key, address) -> {
            residues[0] += PageLayout.countAt(address);
            int bucket = (int) (key >>> 32); // pageKey's halves
            int page = (int) key;
            if (page == 0) {
                heads[bucket >>> 6] |= 1L << bucket;
            }
            setAddress(slot(bucket, page), address);
        });
        PageVisitor overflowPage = (key, address) -> {
            residues[0] += PageLayout.countAt(address);
            int bucket = (int) (key >>> 32);
            int index = (int) key - pagesPerGeneration;
            if (index == 0) {
                rememberFirstOverflow(bucket, address);
            } else {
                rememberOverflowSlowPath(bucket, index, address);
            }
        };
        forEachPage(overflow, overflowPage);
        for (GrowingMap<Long, byte[]> map : grown) {
            forEachPage(map, overflowPage);
        }
        entriesAtOpen = residues[0];
    }

    /** An overflow map of pages of {@code pageBytes}, made on its first write. */
    private static GrowingMap<Long, byte[]> overflowMap(Path dir, String name, GrowingMap.Sizes sizes, int pageBytes, boolean checksums,
            boolean clean) {
        return GrowingMap.onFirstWrite(dir, name, sizes,
                n -> ChronicleMap.of(Long.class, byte[].class).entries(n).constantValueSizeBySample(new byte[pageBytes])
                        .checksumEntries(checksums)
                        .maxBloatFactor(2.0), clean);
    }

    /** The map that holds page {@code page} of a bucket's chain, past the base pages. */
    private GrowingMap<Long, byte[]> overflowOf(int page) {
        int beyond = page - pagesPerGeneration;
        return beyond == 0 || grown.length == 0 ? overflow : grown[Math.min(beyond, grown.length) - 1];
    }

    /** A page's key and where it lies. */
    private interface PageVisitor {
        void visit(long key, long address);
    }

    /** Calls {@code visitor} with every page of {@code map}, oldest generation first. */
    private static void forEachPage(GrowingMap<Long, byte[]> map, PageVisitor visitor) {
        for (int g = 0; g < map.generationCount(); g++) {
            map.generation(g).forEachEntry(e -> {
                Data<byte[]> v = e.value();
                visitor.visit(e.key().get(), v.bytes().addressForRead(v.offset()));
            });
        }
    }

    /**
     * Where page {@code page} of the bucket lies in its mapped file, or 0 if it does not exist.
     * The caller holds the bucket's stripe lock. A base page is found without a map lookup
     * after the first; allocation-free for base pages (an overflow lookup boxes its key).
     */
    long address(int table, int block, int page) {
        if (page >= pagesPerGeneration) {
            return overflowAddress(table, block, page);
        }
        int slot = addressSlot(table, block, page);
        long address = addressAt(slot);
        if (address == 0) {
            address = lookUp(base, pageKey(table, block, page));
            setAddress(slot, address == 0 ? MISSING : address);
        }
        return address == MISSING ? 0 : address;
    }

    private long addressAt(int slot) {
        // A plain read: a chunk seen before its publication is seen as null (looked up again) or
        // with its zeros, which every thread sees; its slots are read opaque.
        long[] chunk = addresses[slot >>> CHUNK_BITS];
        return chunk == null ? 0 : (long) ADDRESS.getOpaque(chunk, slot & (CHUNK_SLOTS - 1));
    }

    /** Sets a slot, making its chunk first if none holds it (another writer may be making it too: one wins). */
    private void setAddress(int slot, long address) {
        long[] chunk = (long[]) CHAIN.getAcquire(addresses, slot >>> CHUNK_BITS);
        if (chunk == null) {
            if (address == 0) {
                return;
            }
            CHAIN.compareAndSet(addresses, slot >>> CHUNK_BITS, null, new long[CHUNK_SLOTS]);
            chunk = (long[]) CHAIN.getAcquire(addresses, slot >>> CHUNK_BITS);
        }
        ADDRESS.setOpaque(chunk, slot & (CHUNK_SLOTS - 1), address);
    }

    /**
     * The address of overflow page {@code page} of the bucket, or 0: remembered, or looked up
     * and then remembered; a missing one is not remembered, as probes only ask for pages a chain
     * counts.
     */
    private long overflowAddress(int table, int block, int page) {
        long address = knownAddress(table, block, page);
        if (address == 0) {
            address = lookUp(overflowOf(page), pageKey(table, block, page));
            if (address != 0) {
                int bucket = BlockTables.bucketKey(table, block);
                if (page == pagesPerGeneration) {
                    rememberFirstOverflow(bucket, address);
                } else {
                    rememberOverflowSlowPath(bucket, page - pagesPerGeneration, address);
                }
            }
        }
        return address;
    }

    private void rememberFirstOverflow(int bucket, long address) {
        long[] known = firstOverflow;
        if (known == null) {
            // Racing probes may each make one; the one kept loses the others' fills, nothing else.
            FIRST_OVERFLOW.compareAndSet(this, null, new long[BlockTables.TABLES << BlockTables.BLOCK_BITS]);
            known = firstOverflow;
        }
        ADDRESS.setOpaque(known, bucket, address);
    }

    private void rememberOverflowSlowPath(int bucket, int index, long address) {
        long[][] chains = overflowAddresses;
        if (chains == null) {
            // Racing probes may each make one; the one kept loses the others' fills, nothing else.
            OVERFLOW_ADDRESSES.compareAndSet(this, null, new long[BlockTables.TABLES << BlockTables.BLOCK_BITS][]);
            chains = overflowAddresses;
        }
        long[] known = (long[]) CHAIN.getAcquire(chains, bucket);
        if (known == null || index >= known.length) {
            long[] grown = new long[Math.max(index + 1, known == null ? 4 : known.length * 2)];
            for (int i = 0; known != null && i < known.length; i++) {
                grown[i] = (long) ADDRESS.getOpaque(known, i);
            }
            grown[index] = address;
            CHAIN.setRelease(chains, bucket, grown);
        } else {
            ADDRESS.setOpaque(known, index, address);
        }
    }

    /** Forgets an overflow page's address; the caller holds the stripe's write lock. */
    private void forgetOverflow(int table, int block, int page) {
        if (page == pagesPerGeneration) {
            long[] known = firstOverflow;
            if (known != null) {
                ADDRESS.setOpaque(known, BlockTables.bucketKey(table, block), 0L);
            }
            return;
        }
        long[][] chains = overflowAddresses;
        long[] known = chains == null ? null : (long[]) CHAIN.getAcquire(chains, BlockTables.bucketKey(table, block));
        int index = page - pagesPerGeneration;
        if (known != null && index < known.length) {
            ADDRESS.setOpaque(known, index, 0L);
        }
    }

    /**
     * Whether the bucket has a page 0: read with acquire, so a caller without the stripe lock
     * that sees it set sees the page complete; one that sees it clear may skip the bucket.
     */
    boolean hasHead(int table, int block) {
        int bucket = BlockTables.bucketKey(table, block);
        return ((long) ADDRESS.getAcquire(heads, bucket >>> 6) & 1L << bucket) != 0;
    }

    /**
     * The address of the bucket's page 0 if it has one and its address is known, else 0:
     * without a map lookup or a lock, for a read that only brings the page in
     * ({@link BucketTable#prefetch}). Under no stripe lock the page may have been removed since:
     * its address then still lies in a mapped file, until the maps are closed (an entry of a
     * fixed-size value is not moved).
     */
    long knownHeadAddress(int table, int block) {
        return hasHead(table, block) ? knownAddress(table, block, 0) : 0;
    }

    /**
     * The address of page {@code page} of the bucket if it is known, else 0: as
     * {@link #knownHeadAddress}, for the later pages of a chain.
     */
    long knownAddress(int table, int block, int page) {
        if (page < pagesPerGeneration) {
            long address = addressAt(addressSlot(table, block, page));
            return address == MISSING ? 0 : address;
        }
        int bucket = BlockTables.bucketKey(table, block);
        if (page == pagesPerGeneration) {
            long[] known = firstOverflow;
            return known == null ? 0 : (long) ADDRESS.getOpaque(known, bucket);
        }
        long[][] chains = overflowAddresses;
        long[] known = chains == null ? null : (long[]) CHAIN.getAcquire(chains, bucket);
        int index = page - pagesPerGeneration;
        return known != null && index < known.length ? (long) ADDRESS.getOpaque(known, index) : 0;
    }

    /** The bucket's number of pages (page 0's pages field), 0 for an empty bucket. The caller holds the stripe lock. */
    int chainLength(int table, int block) {
        int bucket = BlockTables.bucketKey(table, block);
        if (((long) ADDRESS.getOpaque(heads, bucket >>> 6) & 1L << bucket) == 0) {
            return 0;
        }
        long first = address(table, block, 0);
        return first == 0 ? 0 : PageLayout.pagesAt(first);
    }

    /** Where {@code key}'s page lies in {@code map}, newest generation first, or 0. */
    private static long lookUp(GrowingMap<Long, byte[]> map, long key) {
        for (int g = map.generationCount() - 1; g >= 0; g--) {
            long address = lookUp(map.generation(g), key);
            if (address != 0) {
                return address;
            }
        }
        return 0;
    }

    private static long lookUp(ChronicleMap<Long, byte[]> map, long key) {
        try (ExternalMapQueryContext<Long, byte[], ?> c = map.queryContext(key)) {
            MapEntry<Long, byte[]> e = c.entry();
            if (e == null) {
                return 0;
            }
            Data<byte[]> v = e.value();
            return v.bytes().addressForRead(v.offset());
        }
    }

    /**
     * The page's entry under its map's segment write lock, for writing its bytes in place
     * (they are the segment's memory, Chronicle Map's EntryValueBytesData), or null if the page
     * does not exist. The caller holds the stripe's write lock, closes the context, and calls
     * {@link #written} after writing.
     */
    ExternalMapQueryContext<Long, byte[], ?> lock(int table, int block, int page) {
        long key = pageKey(table, block, page);
        GrowingMap<Long, byte[]> map = page < pagesPerGeneration ? base : overflowOf(page);
        for (int g = map.generationCount() - 1; g >= 0; g--) {
            ExternalMapQueryContext<Long, byte[], ?> c = lockIfPresent(map.generation(g), key);
            if (c != null) {
                return c;
            }
        }
        return null;
    }

    private static ExternalMapQueryContext<Long, byte[], ?> lockIfPresent(ChronicleMap<Long, byte[]> map, long key) {
        ExternalMapQueryContext<Long, byte[], ?> c = map.queryContext(key);
        c.writeLock().lock();
        if (c.entry() == null) {
            c.close();
            return null;
        }
        return c;
    }

    /**
     * Whether page {@code page} carries a Chronicle Map entry checksum, so that writing it in
     * place needs its entry ({@link #lock}, then {@link #written}). A page without one is
     * written at its {@link #address} under the stripe's write lock alone, as probes read it:
     * no other thread writes its bytes, and the entry stays where it is.
     */
    boolean checksummed(int page) {
        return page >= pagesPerGeneration ? overflowChecksums : baseChecksums;
    }

    /**
     * After bytes of page {@code page} were written in place: Chronicle Map recomputes an entry
     * checksum only when it writes the value itself, so it must be told, or recovery after a
     * kill -9 finds the checksum wrong and drops the whole page (EmbeddedProcessIT caught that).
     */
    void written(int page, MapEntry<Long, byte[]> e) {
        if (checksummed(page)) {
            ((ChecksumEntry) e).updateChecksum();
        }
    }

    /**
     * Stores a new page (complete: the caller publishes it afterwards). The caller holds the
     * stripe's write lock, so no probe sees the page between the put and its slot's update.
     * A base page's address is looked up at once, while the put has its entry in cache. Left to
     * the bucket's next probe or append, these lookups (with the lookup of the absent page that
     * an add to an empty bucket made first, see BucketTable#appendRun) took 4-16% of the JFR
     * samples of short texts' Dedup into a small collection, where most adds make a page 0.
     */
    void create(int table, int block, int page, byte[] bytes) {
        long key = pageKey(table, block, page);
        if (page < pagesPerGeneration) {
            base.put(key, bytes);
            setAddress(addressSlot(table, block, page), lookUp(base, key));
            if (page == 0) {
                int bucket = BlockTables.bucketKey(table, block);
                ADDRESS.getAndBitwiseOr(heads, bucket >>> 6, 1L << bucket);
            }
        } else {
            forgetOverflow(table, block, page);
            overflowOf(page).put(key, bytes);
        }
    }

    /** Removes a page; the caller holds the stripe's write lock, so no probe is reading its address. */
    void remove(int table, int block, int page) {
        long key = pageKey(table, block, page);
        if (page < pagesPerGeneration) {
            if (page == 0) {
                int bucket = BlockTables.bucketKey(table, block);
                ADDRESS.getAndBitwiseAnd(heads, bucket >>> 6, ~(1L << bucket));
            }
            setAddress(addressSlot(table, block, page), 0L);
            base.remove(key);
        } else {
            forgetOverflow(table, block, page);
            overflowOf(page).remove(key);
        }
    }

    /** Residues stored in all pages when the maps were opened, counted from the files. */
    long entriesAtOpen() {
        return entriesAtOpen;
    }

    long offHeapBytes() {
        long bytes = base.offHeapBytes() + overflow.offHeapBytes();
        for (GrowingMap<Long, byte[]> map : grown) {
            bytes += map.offHeapBytes();
        }
        return bytes;
    }

    /** Pages stored in all maps. */
    long count() {
        long pages = base.size() + overflow.size();
        for (GrowingMap<Long, byte[]> map : grown) {
            pages += map.size();
        }
        return pages;
    }

    /** Unmaps every map; the caller makes sure no thread reads a page address after. */
    @Override
    public void close() {
        base.close();
        overflow.close();
        for (GrowingMap<Long, byte[]> map : grown) {
            map.close();
        }
    }

    private int addressSlot(int table, int block, int page) {
        return slot(BlockTables.bucketKey(table, block), page);
    }

    private int slot(int bucket, int page) {
        return bucket * pagesPerGeneration + page;
    }

    /** Map key of a page: bucket key (18 bits) in the high word, page number in the low word. */
    static long pageKey(int table, int block, int page) {
        return ((long) BlockTables.bucketKey(table, block) << 32) | page;
    }
}
