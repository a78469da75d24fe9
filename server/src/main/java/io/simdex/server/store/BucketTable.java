package io.simdex.server.store;

import io.simdex.fingerprint.BlockTables;
import net.openhft.chronicle.bytes.BytesStore;
import net.openhft.chronicle.core.UnsafeMemory;
import net.openhft.chronicle.hash.ChecksumEntry;
import net.openhft.chronicle.hash.Data;
import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.ExternalMapQueryContext;
import net.openhft.chronicle.map.MapEntry;

import java.io.Closeable;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.StampedLock;

/**
 * The four permuted tables of one shard and collection: each (table, block) bucket is a chain
 * of fixed-size pages ({@link PageLayout}) in persisted Chronicle Maps keyed by
 * {@code (table, block, page)}.
 *
 * <h2>Files</h2>
 * {@code buckets-0.cm} holds pages 0 .. K-1 of every bucket, with K from {@link TableGeometry},
 * created for exactly that many pages; {@code overflow-G.cm} ({@link GrowingMap}) holds the pages
 * of the few buckets that grow past K. Base pages are scanned in place, off-heap; overflow pages
 * are copied to the heap first, a cost paid only by buckets the sizing did not foresee.
 *
 * <h2>Crashes</h2>
 * Base pages are changed in place, in an order that a process killed at any instruction leaves
 * consistent: an append writes the residue, then publishes it by the page's count; a remove
 * fills its hole with the bucket's last residue, then drops the last slot (a crash between
 * leaves that residue twice, which probes collapse); a new page is complete before page 0
 * counts it. So base pages need no Chronicle Map entry checksums, which would cost a hash of
 * the whole page (2.5 KB at 50M) on every append and, after a crash, drop a whole page for a
 * torn write (TableGeometry#entryChecksums; tables created with checksums keep them). What a
 * machine crash loses is the business of replicas or a write-ahead log, as for every map.
 *
 * <h2>Concurrency</h2>
 * Writers of a bucket hold the write lock of its stripe, probes its read lock: a remove moves
 * the bucket's last residue into the hole it leaves, so a scan racing it could miss an
 * unrelated residue.
 *
 * <h2>Page addresses</h2>
 * A probe reads base pages where they lie in the mapped file, at addresses it remembers from
 * the first lookup of each page ({@link #pageAddresses}): a Chronicle Map lookup (hash the key,
 * lock the segment, walk its hash slots, unlock) was a third of the embedded server's CPU for a
 * unary Query at 10M stored, more than the scan of the page itself; store-bench at 10M went from
 * 0.54-0.61 of the ideal index's rate to 0.84-0.96 without it (loadtest REPORT, session 8).
 * An entry of a fixed-size value stays where it is until it is removed or the map is closed:
 * only a writer holding the stripe's write lock removes a page, and it forgets the address
 * first; {@link #close} takes every stripe's write lock before it unmaps anything, so no probe
 * is reading then, and later probes see the table closed. No other thread writes a page's
 * bytes than its bucket's writers, so the stripe lock makes what a probe reads consistent,
 * as Chronicle Map's segment lock did.
 */
public final class BucketTable implements Closeable {
    private static final int STRIPES = 4096;
    private static final VarHandle ADDRESS = MethodHandles.arrayElementVarHandle(long[].class);
    private static final UnsafeMemory MEMORY = UnsafeMemory.MEMORY;
    private static final int CACHE_LINE = 64;

    private final TableGeometry geometry;
    private final int pageBytes;
    private final ChronicleMap<Long, byte[]> base;
    private final GrowingMap<Long, byte[]> overflow;
    private final StampedLock[] stripes = new StampedLock[STRIPES];
    private final AtomicLong entries = new AtomicLong();
    /**
     * Off-heap address of base page {@code bucketKey * pagesPerGeneration + page}, or 0 when not
     * looked up yet or removed since. Read and written under the bucket's stripe lock, opaque so
     * that a long is never torn (probes of one stripe share its read lock and may both fill a slot).
     */
    private final long[] pageAddresses;
    /** Set by close under every stripe's write lock. */
    private boolean closed;

    BucketTable(Path dir, TableGeometry geometry, boolean clean) {
        this.geometry = geometry;
        this.pageBytes = PageLayout.pageBytes(geometry.pageCapacity());
        this.pageAddresses = new long[(BlockTables.TABLES << BlockTables.BLOCK_BITS) * geometry.pagesPerGeneration()];
        for (int i = 0; i < STRIPES; i++) {
            stripes[i] = new StampedLock();
        }
        base = MapFiles.open(ChronicleMap.of(Long.class, byte[].class)
                .name("buckets")
                .entries(geometry.pagesPerMap())
                .constantValueSizeBySample(new byte[pageBytes])
                .checksumEntries(geometry.entryChecksums())
                .putReturnsNull(true)
                .removeReturnsNull(true), dir.resolve("buckets-0.cm"), clean);
        int pageBytes = this.pageBytes;
        overflow = new GrowingMap<>(dir, "overflow", Math.max(1024, geometry.pagesPerMap() / 16),
                n -> ChronicleMap.of(Long.class, byte[].class).entries(n).constantValueSizeBySample(new byte[pageBytes])
                        .maxBloatFactor(2.0), clean);
        entries.set(countEntries());
    }

    /**
     * Appends to {@code out} every stored fingerprint of bucket (table, block(fp)) within
     * {@code maxDistance} of {@code fp}. Allocation-free once {@code out} has grown.
     */
    public void probe(int table, long fp, int maxDistance, MatchBuffer out) {
        int block = BlockTables.block(fp, table);
        long residue = BlockTables.residue(fp, table);
        StampedLock lock = stripe(table, block);
        long stamp = lock.readLock();
        try {
            if (closed) {
                throw new IllegalStateException("bucket table closed (its generation expired or the node is stopping)");
            }
            scanBucket(table, block, residue, maxDistance, out);
        } finally {
            lock.unlockRead(stamp);
        }
    }

    private void scanBucket(int table, int block, long residue, int maxDistance, MatchBuffer out) {
        int pages = scanPage(table, block, 0, residue, maxDistance, out);
        for (int p = 1; p < pages; p++) {
            scanPage(table, block, p, residue, maxDistance, out);
        }
    }

    /**
     * Scans one page; returns the page's "pages" field (meaningful on page 0). The caller holds
     * the stripe's lock. Base pages are read in place, off-heap, at their remembered address:
     * no copy, no allocation, and after the first probe no map lookup.
     */
    private int scanPage(int table, int block, int page, long residue, int maxDistance, MatchBuffer out) {
        if (page >= geometry.pagesPerGeneration()) {
            return scanOverflowSlowPath(table, block, page, residue, maxDistance, out);
        }
        int slot = addressSlot(table, block, page);
        long address = (long) ADDRESS.getOpaque(pageAddresses, slot);
        if (address == 0) {
            address = lookUpAddress(table, block, page);
            if (address == 0) {
                return 0;
            }
            ADDRESS.setOpaque(pageAddresses, slot, address);
        }
        int count = MEMORY.readInt(address + PageLayout.COUNT_OFFSET);
        long at = address + PageLayout.HEADER_BYTES;
        out.keep(touch(at, at + (long) count * PageLayout.RESIDUE_BYTES));
        for (int i = 0; i < count; i++, at += PageLayout.RESIDUE_BYTES) {
            long stored = MEMORY.readLong(at) & PageLayout.RESIDUE_MASK;
            if (Long.bitCount(stored ^ residue) <= maxDistance) {
                out.add(BlockTables.fingerprint(table, block, stored));
            }
        }
        return MEMORY.readInt(address + PageLayout.PAGES_OFFSET);
    }

    /**
     * Reads a byte of every cache line in [from, to) before the scan reads them: these loads do
     * not depend on each other, so their misses overlap, where the scan meets each line's miss
     * in turn (a bucket at 10M stored is about 15 lines). Returns their sum, for the caller to
     * keep so that the JIT keeps the loads.
     */
    private static int touch(long from, long to) {
        int sum = 0;
        for (long line = from; line < to; line += CACHE_LINE) {
            sum += MEMORY.readByte(line);
        }
        return to > from ? sum + MEMORY.readByte(to - 1) : sum;
    }

    /** Where base page {@code page} of the bucket lies in the mapped file, or 0 if it does not exist. */
    private long lookUpAddress(int table, int block, int page) {
        try (ExternalMapQueryContext<Long, byte[], ?> c = base.queryContext(pageKey(table, block, page))) {
            MapEntry<Long, byte[]> e = c.entry();
            if (e == null) {
                return 0;
            }
            Data<byte[]> v = e.value();
            return v.bytes().addressForRead(v.offset());
        }
    }

    private int addressSlot(int table, int block, int page) {
        return BlockTables.bucketKey(table, block) * geometry.pagesPerGeneration() + page;
    }

    private int scanOverflowSlowPath(int table, int block, int page, long residue, int maxDistance, MatchBuffer out) {
        byte[] bytes = overflow.get(pageKey(table, block, page));
        if (bytes == null) {
            return 0;
        }
        int count = PageLayout.count(bytes);
        for (int i = 0; i < count; i++) {
            long stored = PageLayout.residue(bytes, i);
            if (Long.bitCount(stored ^ residue) <= maxDistance) {
                out.add(BlockTables.fingerprint(table, block, stored));
            }
        }
        return PageLayout.pages(bytes);
    }

    /** Adds {@code fp} to its bucket of {@code table}; false if it was there already. */
    public boolean add(int table, long fp) {
        return add(table, fp, true);
    }

    /**
     * Adds {@code fp} to its bucket of {@code table}. With {@code checkPresence} false the bucket
     * is not scanned for it first: for a fingerprint the caller knows is new, the append touches
     * one page (two once the bucket has several) instead of every page of the bucket. If the
     * caller was wrong, the bucket holds it twice, which probes collapse; the next remove takes
     * one copy.
     */
    public boolean add(int table, long fp, boolean checkPresence) {
        int block = BlockTables.block(fp, table);
        StampedLock lock = stripe(table, block);
        long stamp = lock.writeLock();
        try {
            if (checkPresence && containsSlowPath(table, block, BlockTables.residue(fp, table))) {
                return false;
            }
            // A run of one: a 24-byte array per add, for one append path. Only checked adds (a
            // retry, a shared fingerprint, a copy from another node) come this way; new ones
            // come through addAll without it (ShardNode#bucketAdd).
            appendRun(table, block, new long[] {fp}, 0, 1);
            entries.incrementAndGet();
            return true;
        } finally {
            lock.unlockWrite(stamp);
        }
    }

    /**
     * Appends {@code fps[from..to)}, all new and all of one bucket of {@code table}, under one
     * stripe lock and with one map operation per page they fill rather than one or two per
     * fingerprint: a bulk load's batch mode (Manku et al. section 3.2), fed runs grouped by block.
     */
    public void addAll(int table, long[] fps, int from, int to) {
        if (from >= to) {
            return;
        }
        int block = BlockTables.block(fps[from], table);
        for (int i = from + 1; i < to; i++) {
            if (BlockTables.block(fps[i], table) != block) {
                throw new IllegalArgumentException("fingerprints " + from + ".." + (to - 1) + " span more than one bucket of table " + table);
            }
        }
        StampedLock lock = stripe(table, block);
        long stamp = lock.writeLock();
        try {
            for (int i = from; i < to; ) {
                i += appendRun(table, block, fps, i, to);
            }
            entries.addAndGet(to - from);
        } finally {
            lock.unlockWrite(stamp);
        }
    }

    /**
     * Appends a prefix of {@code fps[from..to)} (at least one) to the bucket's last page, or to a
     * new page when that one is full; returns how many. The caller holds the stripe's write lock.
     * Base pages are written in place, under Chronicle Map's segment write lock: 6 bytes a
     * residue and a count, instead of a page copied out and back (2 x 1.5 KB at 256 slots, half
     * of a bulk load's time when it was done that way).
     */
    private int appendRun(int table, int block, long[] fps, int from, int to) {
        long head = appendInPlace(pageKey(table, block, 0), table, fps, from, to, true);
        if (head == ABSENT) {
            return newPage(table, block, 0, fps, from, to);
        }
        if (appended(head) > 0) {
            return appended(head);
        }
        int pages = pagesOf(head);
        int last = pages - 1;
        if (last > 0) {
            int n = last < geometry.pagesPerGeneration()
                    ? appended(appendInPlace(pageKey(table, block, last), table, fps, from, to, false))
                    : appendToOverflowSlowPath(table, block, last, fps, from, to);
            if (n > 0) {
                return n;
            }
        }
        // The last page is full: a new page first, then page 0's count of pages, so a reader
        // never follows the count to a page that is not there.
        int n = newPage(table, block, pages, fps, from, to);
        setInt(table, block, 0, PageLayout.PAGES_OFFSET, pages + 1);
        return n;
    }

    /** Writes page {@code page} of the bucket holding a prefix of {@code fps[from..to)}; returns how many it holds. */
    private int newPage(int table, int block, int page, long[] fps, int from, int to) {
        int n = Math.min(geometry.pageCapacity(), to - from);
        byte[] bytes = new byte[pageBytes];
        PageLayout.count(bytes, n);
        PageLayout.pages(bytes, page == 0 ? 1 : 0);
        for (int i = 0; i < n; i++) {
            PageLayout.residue(bytes, i, BlockTables.residue(fps[from + i], table));
        }
        put(table, block, page, bytes);
        return n;
    }

    /** appendInPlace's answer when the page does not exist; any other is {@code appended << 32 | pages}. */
    private static final long ABSENT = -1;

    private static int appended(long answer) {
        return (int) (answer >>> 32);
    }

    private static int pagesOf(long answer) {
        return (int) answer;
    }

    /**
     * Appends in place to base page {@code key}, if it exists, as much of {@code fps[from..to)}
     * as it has room for, provided that with {@code onlyIfLast} it is the bucket's only page.
     * Returns ABSENT, or how many it appended (0 when full or not last) and the page's "pages"
     * field (the bucket's page count, on page 0).
     */
    private long appendInPlace(long key, int table, long[] fps, int from, int to, boolean onlyIfLast) {
        try (ExternalMapQueryContext<Long, byte[], ?> c = base.queryContext(key)) {
            c.writeLock().lock();
            MapEntry<Long, byte[]> e = c.entry();
            if (e == null) {
                return ABSENT;
            }
            Data<byte[]> v = e.value();
            // The entry's bytes are the segment's memory (Chronicle Map's EntryValueBytesData), writable under the write lock.
            BytesStore<?, ?> page = (BytesStore<?, ?>) v.bytes();
            long at = v.offset();
            int count = page.readInt(at + PageLayout.COUNT_OFFSET);
            int pages = page.readInt(at + PageLayout.PAGES_OFFSET);
            int n = onlyIfLast && pages > 1 ? 0 : Math.min(geometry.pageCapacity() - count, to - from);
            if (n <= 0) {
                return pages & 0xFFFF_FFFFL;
            }
            for (int i = 0; i < n; i++) {
                PageLayout.residue(page, at + PageLayout.residueOffset(count + i), BlockTables.residue(fps[from + i], table));
            }
            // Ordered after the residues: the count publishes them, even to a recovery after a crash.
            page.writeOrderedInt(at + PageLayout.COUNT_OFFSET, count + n);
            updateChecksum(e);
            return (long) n << 32 | pages;
        }
    }

    /** Sets the int at {@code offset} of a page (its count, or page 0's pages), ordered after earlier writes. */
    private void setInt(int table, int block, int page, int offset, int value) {
        edit(table, block, page, (bytes, at) -> bytes.writeOrderedInt(at + offset, value));
    }

    /** Sets residue {@code slot} of a page. */
    private void setResidue(int table, int block, int page, int slot, long residue) {
        edit(table, block, page, (bytes, at) -> PageLayout.residue(bytes, at + PageLayout.residueOffset(slot), residue));
    }

    /** A write into a page's bytes, the page starting at {@code at}. */
    private interface PageWrite {
        void apply(BytesStore<?, ?> bytes, long at);
    }

    /** Applies {@code write} to an existing page: in place for a base page, through a heap copy for an overflow page. */
    private void edit(int table, int block, int page, PageWrite write) {
        long key = pageKey(table, block, page);
        if (page >= geometry.pagesPerGeneration()) {
            byte[] copy = overflow.get(key);
            write.apply(BytesStore.wrap(copy), 0);
            overflow.put(key, copy);
            return;
        }
        try (ExternalMapQueryContext<Long, byte[], ?> c = base.queryContext(key)) {
            c.writeLock().lock();
            MapEntry<Long, byte[]> e = c.entry();
            Data<byte[]> v = e.value();
            write.apply((BytesStore<?, ?>) v.bytes(), v.offset());
            updateChecksum(e);
        }
    }

    /**
     * In a table created with entry checksums, Chronicle Map recomputes a checksum only when it
     * writes the value itself; after bytes written in place it must be told, or recovery after a
     * kill -9 finds the checksum wrong and drops the whole page (EmbeddedProcessIT caught that).
     */
    private void updateChecksum(MapEntry<Long, byte[]> e) {
        if (geometry.entryChecksums()) {
            ((ChecksumEntry) e).updateChecksum();
        }
    }

    /** Appends a prefix of {@code fps[from..to)} to overflow page {@code page} through a heap copy; returns how many (0 if full). */
    private int appendToOverflowSlowPath(int table, int block, int page, long[] fps, int from, int to) {
        byte[] last = overflow.get(pageKey(table, block, page));
        int count = PageLayout.count(last);
        int n = Math.min(geometry.pageCapacity() - count, to - from);
        if (n <= 0) {
            return 0;
        }
        for (int i = 0; i < n; i++) {
            PageLayout.residue(last, count + i, BlockTables.residue(fps[from + i], table));
        }
        PageLayout.count(last, count + n);
        overflow.put(pageKey(table, block, page), last);
        return n;
    }

    private boolean containsSlowPath(int table, int block, long residue) {
        byte[] first = page(table, block, 0);
        int pages = first == null ? 0 : PageLayout.pages(first);
        for (int p = 0; p < pages; p++) {
            if (slotOf(p == 0 ? first : page(table, block, p), residue) >= 0) {
                return true;
            }
        }
        return false;
    }

    /** Removes {@code fp} from its bucket of {@code table}; false if it was not there. */
    public boolean remove(int table, long fp) {
        int block = BlockTables.block(fp, table);
        long residue = BlockTables.residue(fp, table);
        StampedLock lock = stripe(table, block);
        long stamp = lock.writeLock();
        try {
            byte[] first = page(table, block, 0);
            if (first == null) {
                return false;
            }
            int pages = PageLayout.pages(first);
            byte[][] chain = new byte[pages][];
            chain[0] = first;
            int holePage = -1;
            int holeSlot = -1;
            for (int p = 0; p < pages && holePage < 0; p++) {
                if (chain[p] == null) {
                    chain[p] = page(table, block, p);
                }
                int slot = slotOf(chain[p], residue);
                if (slot >= 0) {
                    holePage = p;
                    holeSlot = slot;
                }
            }
            if (holePage < 0) {
                return false;
            }
            int lastIndex = pages - 1;
            byte[] last = chain[lastIndex] != null ? chain[lastIndex] : page(table, block, lastIndex);
            int lastCount = PageLayout.count(last);
            // Fill the hole with the bucket's last residue so pages stay dense, then drop the
            // last slot (the order is what makes a crash harmless: see the class comment).
            if (holePage != lastIndex || holeSlot != lastCount - 1) {
                setResidue(table, block, holePage, holeSlot, PageLayout.residue(last, lastCount - 1));
            }
            if (lastCount - 1 > 0) {
                setInt(table, block, lastIndex, PageLayout.COUNT_OFFSET, lastCount - 1);
            } else if (lastIndex == 0) {
                removePage(table, block, 0);
            } else {
                // Unlinked first: a crash then leaves an unreachable page, which the next new page replaces.
                setInt(table, block, 0, PageLayout.PAGES_OFFSET, pages - 1);
                removePage(table, block, lastIndex);
            }
            entries.decrementAndGet();
            return true;
        } finally {
            lock.unlockWrite(stamp);
        }
    }

    /**
     * Every fingerprint in bucket (table, block), read under the stripe's read lock so a
     * concurrent remove cannot make the copy miss one: for streaming a bucket to another node.
     */
    public long[] fingerprints(int table, int block) {
        StampedLock lock = stripe(table, block);
        long stamp = lock.readLock();
        try {
            byte[] first = page(table, block, 0);
            if (first == null) {
                return new long[0];
            }
            int pages = PageLayout.pages(first);
            MatchBuffer out = new MatchBuffer();
            for (int p = 0; p < pages; p++) {
                byte[] page = p == 0 ? first : page(table, block, p);
                for (int i = 0, n = PageLayout.count(page); i < n; i++) {
                    out.add(BlockTables.fingerprint(table, block, PageLayout.residue(page, i)));
                }
            }
            return out.toArray();
        } finally {
            lock.unlockRead(stamp);
        }
    }

    /** Empties bucket (table, block), deleting its pages; returns how many entries it held. */
    public int clear(int table, int block) {
        StampedLock lock = stripe(table, block);
        long stamp = lock.writeLock();
        try {
            byte[] first = page(table, block, 0);
            if (first == null) {
                return 0;
            }
            int removed = 0;
            // Page 0 first: a crash midway leaves unreachable pages, never a chain with holes.
            for (int p = 0, pages = PageLayout.pages(first); p < pages; p++) {
                byte[] page = p == 0 ? first : page(table, block, p);
                removed += page == null ? 0 : PageLayout.count(page);
                removePage(table, block, p);
            }
            entries.addAndGet(-removed);
            return removed;
        } finally {
            lock.unlockWrite(stamp);
        }
    }

    /** Residues stored across all buckets. */
    public long entries() {
        return entries.get();
    }

    /** Off-heap bytes the base and overflow maps occupy. */
    public long offHeapBytes() {
        return base.offHeapMemoryUsed() + overflow.offHeapBytes();
    }

    public TableGeometry geometry() {
        return geometry;
    }

    /** Waits for probes in flight (every stripe's write lock), then unmaps: no probe reads a remembered address after. */
    @Override
    public void close() {
        long[] stamps = new long[STRIPES];
        for (int i = 0; i < STRIPES; i++) {
            stamps[i] = stripes[i].writeLock();
        }
        try {
            closed = true;
            base.close();
            overflow.close();
        } finally {
            for (int i = 0; i < STRIPES; i++) {
                stripes[i].unlockWrite(stamps[i]);
            }
        }
    }

    private static int slotOf(byte[] page, long residue) {
        int count = PageLayout.count(page);
        for (int i = 0; i < count; i++) {
            if (PageLayout.residue(page, i) == residue) {
                return i;
            }
        }
        return -1;
    }

    private byte[] page(int table, int block, int page) {
        long key = pageKey(table, block, page);
        return page < geometry.pagesPerGeneration() ? base.get(key) : overflow.get(key);
    }

    private void put(int table, int block, int page, byte[] value) {
        long key = pageKey(table, block, page);
        if (page < geometry.pagesPerGeneration()) {
            base.put(key, value);
        } else {
            overflow.put(key, value);
        }
    }

    /** Removes a page; the caller holds the stripe's write lock, so no probe is reading its address. */
    private void removePage(int table, int block, int page) {
        long key = pageKey(table, block, page);
        if (page < geometry.pagesPerGeneration()) {
            ADDRESS.setOpaque(pageAddresses, addressSlot(table, block, page), 0L);
            base.remove(key);
        } else {
            overflow.remove(key);
        }
    }

    private long countEntries() {
        long[] sum = {0};
        for (byte[] page : base.values()) {
            sum[0] += PageLayout.count(page);
        }
        overflow.forEachValue(page -> sum[0] += PageLayout.count(page));
        return sum[0];
    }

    private StampedLock stripe(int table, int block) {
        return stripes[BlockTables.bucketKey(table, block) & (STRIPES - 1)];
    }

    /** Map key of a page: bucket key (18 bits) in the high word, page number in the low word. */
    static long pageKey(int table, int block, int page) {
        return ((long) BlockTables.bucketKey(table, block) << 32) | page;
    }
}
