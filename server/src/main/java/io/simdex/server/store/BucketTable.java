package io.simdex.server.store;

import io.simdex.fingerprint.BlockTables;
import net.openhft.chronicle.bytes.BytesStore;
import net.openhft.chronicle.core.UnsafeMemory;
import net.openhft.chronicle.hash.Data;
import net.openhft.chronicle.map.ExternalMapQueryContext;
import net.openhft.chronicle.map.MapEntry;

import java.io.Closeable;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.StampedLock;

/**
 * The four permuted tables of one shard and collection: each (table, block) bucket is a chain
 * of fixed-size pages ({@link PageLayout}), page 0 first; {@link BucketPages} keeps them in
 * persisted Chronicle Maps, the first pages of every bucket in a base map sized for them and the
 * rest in overflow maps, each later page of a chain holding more ({@link TableGeometry#capacity}).
 * One algorithm serves all: a page is an address, read and written in place, wherever it lies.
 *
 * <h2>Crashes</h2>
 * Pages are changed in place, in an order that a process killed at any instruction leaves
 * consistent: an append writes the residue, then publishes it by the page's count; a remove
 * fills its hole with the bucket's last residue, then drops the last slot (a crash between
 * leaves that residue twice, which probes collapse); a new page is complete before page 0
 * counts it. So base pages need no Chronicle Map entry checksums, which would cost a hash of
 * the whole page (2.5 KB at 50M) on every append and, after a crash, drop a whole page for a
 * torn write (TableGeometry#entryChecksums; tables created with checksums keep them, and
 * overflow pages have them, see BucketPages). What a machine crash loses is the business of
 * replicas or a write-ahead log, as for every map.
 *
 * <h2>Concurrency</h2>
 * Writers of a bucket hold the write lock of its stripe, probes its read lock: a remove moves
 * the bucket's last residue into the hole it leaves, so a scan racing it could miss an
 * unrelated residue. No other thread writes a page's bytes than its bucket's writers, so the
 * stripe lock makes what a probe reads in place consistent, as Chronicle Map's segment lock
 * did. {@link #close} takes every stripe's write lock before it unmaps anything, so no probe is
 * reading a page then, and every later call, probe or write, sees the table closed under its
 * stripe lock before it touches a page.
 */
public final class BucketTable implements Closeable {
    private static final int STRIPES = 4096;
    private static final int CACHE_LINE = 64;
    /** Pages of one bucket's chain that {@link #prefetch} brings in, at most. */
    private static final int PREFETCHED_PAGES = 8;
    private static final UnsafeMemory MEMORY = UnsafeMemory.MEMORY;

    private static final VarHandle CLOSED;

    static {
        try {
            CLOSED = MethodHandles.lookup().findVarHandle(BucketTable.class, "closed", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final TableGeometry geometry;
    private final BucketPages pages;
    /** The store's tables packed ({@link PackedBuckets}) instead of in pages, or null: every call goes to it. */
    private final PackedBuckets packed;
    private final LockStripes<StampedLock> stripes = new LockStripes<>(STRIPES, StampedLock::new);
    private final AtomicLong entries = new AtomicLong();
    /**
     * Set by close under every stripe's write lock; read under a stripe lock by every call
     * ({@link #checkOpen}), or volatile by a probe of an empty bucket, which takes no lock.
     */
    private boolean closed;

    BucketTable(Path dir, TableGeometry geometry, boolean clean) {
        this(dir, geometry, clean, false);
    }

    /** With {@code packed}, the tables are a {@link PackedBuckets} in {@code dir/packed} instead of pages. */
    BucketTable(Path dir, TableGeometry geometry, boolean clean, boolean packed) {
        this.geometry = geometry;
        this.packed = packed ? new PackedBuckets(dir.resolve("packed")) : null;
        pages = packed ? null : new BucketPages(dir, geometry, clean);
        entries.set(packed ? 0 : pages.entriesAtOpen());
    }

    /** Whether {@code dir} holds packed tables. */
    static boolean isPacked(Path dir) {
        return java.nio.file.Files.exists(dir.resolve("packed").resolve(PackedBuckets.MANIFEST));
    }

    /**
     * After an add to packed tables: compacts them, on the compaction thread, when their delta
     * is due ({@link PackedBuckets#compactionDue}), or once they are idle.
     */
    private void compactIfDue() {
        if (packed.compactionDue()) {
            PackedCompactions.submit(packed);
        }
        PackedCompactions.afterWrite(packed);
    }

    /**
     * Appends to {@code out} every stored fingerprint of bucket (table, block(fp)) within
     * {@code maxDistance} of {@code fp}. Allocation-free once {@code out} has grown, for buckets
     * within their base pages.
     */
    public void probe(int table, long fp, int maxDistance, MatchBuffer out) {
        if (packed != null) {
            packed.probe(table, fp, maxDistance, out);
            return;
        }
        int block = BlockTables.block(fp, table);
        if (!pages.hasHead(table, block)) {
            // An empty bucket answers without its stripe lock: its page 0 is published (the bit
            // set) only once complete, so a probe that reads the bit clear is one that ran before
            // the first add. Short texts' probes read 68 buckets, and in small collections most
            // are empty (54% in dedup-cpu's 20,000 20-word texts), each costing two atomic
            // updates of a lock for nothing.
            checkOpenVolatile();
            return;
        }
        long residue = BlockTables.residue(fp, table);
        StampedLock lock = stripe(table, block);
        long stamp = lock.readLock();
        try {
            checkOpen();
            int n = pages.chainLength(table, block);
            if (n > 1) {
                touchChain(table, block, n, out);
            }
            for (int p = 0; p < n; p++) {
                long address = pages.address(table, block, p);
                if (address != 0) {
                    scanPage(address, table, block, residue, maxDistance, out);
                }
            }
        } finally {
            lock.unlockRead(stamp);
        }
    }

    /**
     * Brings in what {@link #probe} of each bucket (tables[i], block(fps[i])), i below
     * {@code count}, reads first: the bucket's stripe lock and its page 0's residues. A probe
     * to distance 7 reads 68 buckets, and each met its misses in turn (lock, then address,
     * then page); read here first, all together, they overlap: a 20-word text's Dedup took 0.82x
     * the CPU at 200,000 stored ({@code dedup-cpu --stored 200000 --words 20}, medians of three
     * alternating runs). One stripe's read lock, held meanwhile, keeps
     * {@link #close} from unmapping the pages; the buckets' own stripes are not taken, so a page
     * read here may be changing or removed: only its lines are kept, and its count is capped at
     * the page's capacity so that the reads stay within the page's bytes, which stay mapped.
     * Returns a sum for the caller to keep, so that the JIT keeps the reads.
     */
    public int prefetch(int[] tables, long[] fps, int count) {
        if (packed != null) {
            return packed.prefetch(tables, fps, count);
        }
        if (count == 0) {
            return 0;
        }
        StampedLock guard = stripe(tables[0], BlockTables.block(fps[0], tables[0]));
        long stamp = guard.readLock();
        try {
            if (closed) {
                return 0;
            }
            int sum = 0;
            // Two passes: the first reads one line of each bucket's page 0, loads that depend on
            // nothing before them, so their misses overlap; the second reads the page's count
            // from that line, then the rest of the page and of its chain.
            for (int i = 0; i < count; i++) {
                int block = BlockTables.block(fps[i], tables[i]);
                long address = pages.knownHeadAddress(tables[i], block);
                if (address != 0) {
                    sum += (int) stripe(tables[i], block).tryOptimisticRead() + MEMORY.readByte(address);
                }
            }
            for (int i = 0; i < count; i++) {
                int block = BlockTables.block(fps[i], tables[i]);
                long address = pages.knownHeadAddress(tables[i], block);
                if (address != 0) {
                    sum += touchPage(address, 0);
                    // Later pages, as far as their addresses are known: a chain's pages are
                    // full but the last, and text fingerprints crowd some buckets into chains.
                    int chain = Math.min(PageLayout.pagesAt(address), PREFETCHED_PAGES);
                    for (int p = 1; p < chain; p++) {
                        long next = pages.knownAddress(tables[i], block, p);
                        if (next != 0) {
                            sum += touchPage(next, p);
                        }
                    }
                }
            }
            return sum;
        } finally {
            guard.unlockRead(stamp);
        }
    }

    /** Touches the residues of page {@code page} at {@code address}, its count capped at the page's capacity ({@link #prefetch}). */
    private int touchPage(long address, int page) {
        int residues = Math.min(Math.max(PageLayout.countAt(address), 0), geometry.capacity(page));
        long at = address + PageLayout.HEADER_BYTES;
        return touch(at, at + (long) residues * PageLayout.RESIDUE_BYTES);
    }

    /** Scans the page at {@code address} in place: no copy, no allocation. The caller holds the stripe's lock. */
    private static void scanPage(long address, int table, int block, long residue, int maxDistance, MatchBuffer out) {
        int count = PageLayout.countAt(address);
        long at = address + PageLayout.HEADER_BYTES;
        out.keep(touch(at, at + (long) count * PageLayout.RESIDUE_BYTES));
        for (int i = 0; i < count; i++, at += PageLayout.RESIDUE_BYTES) {
            long stored = MEMORY.readLong(at) & PageLayout.RESIDUE_MASK;
            if (Long.bitCount(stored ^ residue) <= maxDistance) {
                out.add(BlockTables.fingerprint(table, block, stored));
            }
        }
    }

    /**
     * Brings in every page of a chain of {@code n} before any is scanned: all but the last are
     * full (appends go to the last page, a remove fills its hole from the last), so their lines
     * are known without reading their headers, and the last page's header is read with them.
     * Scanned page by page, each page's misses waited for the one before; a collection holding
     * ten times what it was created for has chains of four pages (of seven, in fixed pages).
     */
    private void touchChain(int table, int block, int n, MatchBuffer out) {
        for (int p = 0; p < n; p++) {
            long address = pages.address(table, block, p);
            if (address != 0) {
                out.keep(p < n - 1 ? touch(address, address + PageLayout.pageBytes(geometry.capacity(p))) : MEMORY.readByte(address));
            }
        }
    }

    /**
     * Reads a byte of every cache line in [from, to) before the scan reads them: these loads do
     * not depend on each other, so their misses overlap, where the scan meets each line's miss
     * in turn (a bucket at 10M stored is about 15 lines). Returns their sum, for the caller to
     * keep so that the JIT keeps the loads.
     */
    static int touch(long from, long to) {
        int sum = 0;
        for (long line = from; line < to; line += CACHE_LINE) {
            sum += MEMORY.readByte(line);
        }
        return to > from ? sum + MEMORY.readByte(to - 1) : sum;
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
        if (packed != null) {
            boolean added = packed.add(table, fp);
            compactIfDue();
            return added;
        }
        int block = BlockTables.block(fp, table);
        StampedLock lock = stripe(table, block);
        long stamp = lock.writeLock();
        try {
            checkOpen();
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
        if (packed != null) {
            packed.addAll(table, fps, from, to);
            compactIfDue();
            return;
        }
        int block = blockOfRun(table, fps, from, to);
        StampedLock lock = stripe(table, block);
        long stamp = lock.writeLock();
        try {
            checkOpen();
            for (int i = from; i < to; ) {
                i += appendRun(table, block, fps, i, to);
            }
            entries.addAndGet(to - from);
        } finally {
            lock.unlockWrite(stamp);
        }
    }

    /**
     * Adds those of {@code fps[from..to)}, all of one bucket of {@code table}, that the bucket
     * does not hold yet (each once); returns how many it added. Under one stripe lock the
     * bucket's residues are read once and sorted, so a run of r checked against a bucket of b
     * costs (b + r) log b rather than r x b, as r single checked adds would: a copy from a peer
     * (ChunkApplier) sends whole buckets, nearly all of which a node that restarted already holds.
     * Reorders {@code fps[from..to)}.
     */
    public int addAbsent(int table, long[] fps, int from, int to) {
        if (from >= to) {
            return 0;
        }
        if (packed != null) {
            blockOfRun(table, fps, from, to);
            int added = 0;
            for (int i = from; i < to; i++) {
                added += packed.add(table, fps[i]) ? 1 : 0;
            }
            compactIfDue();
            return added;
        }
        int block = blockOfRun(table, fps, from, to);
        StampedLock lock = stripe(table, block);
        long stamp = lock.writeLock();
        try {
            checkOpen();
            long[] held = residues(table, block);
            Arrays.sort(held);
            // Absent ones to the front, in order, each once: a residue fixes the fingerprint
            // within its bucket, so sorting by fingerprint puts copies side by side.
            Arrays.sort(fps, from, to);
            int n = from;
            for (int i = from; i < to; i++) {
                if ((i == from || fps[i] != fps[i - 1]) && Arrays.binarySearch(held, BlockTables.residue(fps[i], table)) < 0) {
                    fps[n++] = fps[i];
                }
            }
            for (int i = from; i < n; ) {
                i += appendRun(table, block, fps, i, n);
            }
            entries.addAndGet(n - from);
            return n - from;
        } finally {
            lock.unlockWrite(stamp);
        }
    }

    /** The block of {@code fps[from..to)} in {@code table}, a non-empty run; IllegalArgumentException if they span two. */
    private static int blockOfRun(int table, long[] fps, int from, int to) {
        int block = BlockTables.block(fps[from], table);
        for (int i = from + 1; i < to; i++) {
            if (BlockTables.block(fps[i], table) != block) {
                throw new IllegalArgumentException("fingerprints " + from + ".." + (to - 1) + " span more than one bucket of table " + table);
            }
        }
        return block;
    }

    /** The residues bucket (table, block) holds, in page order; the caller holds its stripe lock, so the chain holds still. */
    private long[] residues(int table, int block) {
        int chain = pages.chainLength(table, block);
        int count = 0;
        for (int p = 0; p < chain; p++) {
            long address = pages.address(table, block, p);
            count += address == 0 ? 0 : PageLayout.countAt(address);
        }
        long[] out = new long[count];
        int k = 0;
        for (int p = 0; p < chain; p++) {
            long address = pages.address(table, block, p);
            for (int i = 0, c = address == 0 ? 0 : PageLayout.countAt(address); i < c; i++) {
                out[k++] = PageLayout.residueAt(address, i);
            }
        }
        return out;
    }

    /**
     * Appends a prefix of {@code fps[from..to)} (at least one) to the bucket's last page, or to a
     * new page when that one is full; returns how many. The caller holds the stripe's write lock.
     * Pages are written in place (under Chronicle Map's segment write lock where they carry a
     * checksum): 6 bytes a residue and a count, instead of a page copied out and back (2 x 1.5 KB at 256 slots, half of a
     * bulk load's time when it was done that way).
     */
    private int appendRun(int table, int block, long[] fps, int from, int to) {
        if (!pages.hasHead(table, block)) {
            // Known absent without a map lookup: a bucket's first add, most adds of a small collection.
            return newPage(table, block, 0, fps, from, to);
        }
        long head = appendInPlace(table, block, 0, fps, from, to, true);
        if (head == ABSENT) {
            return newPage(table, block, 0, fps, from, to);
        }
        if (appended(head) > 0) {
            return appended(head);
        }
        int chain = pagesOf(head);
        int last = chain - 1;
        if (last > 0) {
            int n = appended(appendInPlace(table, block, last, fps, from, to, false));
            if (n > 0) {
                return n;
            }
        }
        // The last page is full: a new page first, then page 0's count of pages, so a reader
        // never follows the count to a page that is not there.
        int n = newPage(table, block, chain, fps, from, to);
        setInt(table, block, 0, PageLayout.PAGES_OFFSET, chain + 1);
        return n;
    }

    /** Writes page {@code page} of the bucket holding a prefix of {@code fps[from..to)}; returns how many it holds. */
    private int newPage(int table, int block, int page, long[] fps, int from, int to) {
        int capacity = geometry.capacity(page);
        int n = Math.min(capacity, to - from);
        byte[] bytes = new byte[PageLayout.pageBytes(capacity)];
        PageLayout.count(bytes, n);
        PageLayout.pages(bytes, page == 0 ? 1 : 0);
        for (int i = 0; i < n; i++) {
            PageLayout.residue(bytes, i, BlockTables.residue(fps[from + i], table));
        }
        pages.create(table, block, page, bytes);
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
     * Appends in place to page {@code page} of the bucket, if it exists, as much of
     * {@code fps[from..to)} as it has room for, provided that with {@code onlyIfLast} it is the
     * bucket's only page. Returns ABSENT, or how many it appended (0 when full or not last) and
     * the page's "pages" field (the bucket's page count, on page 0).
     */
    private long appendInPlace(int table, int block, int page, long[] fps, int from, int to, boolean onlyIfLast) {
        if (!pages.checksummed(page)) {
            long address = pages.address(table, block, page);
            return address == 0 ? ABSENT : appendAt(address, geometry.capacity(page), table, fps, from, to, onlyIfLast);
        }
        return appendInPlaceSlowPath(table, block, page, fps, from, to, onlyIfLast);
    }

    /**
     * appendInPlace on a page without an entry checksum, at its address: no Chronicle Map
     * lookup or segment lock, which were 16% of the server's CPU samples (JFR) in the loadtest's
     * batched Dedup at 2M stored, one per residue since Dedup's new fingerprints come one to a
     * bucket; see BucketPages#checksummed.
     */
    private long appendAt(long address, int capacity, int table, long[] fps, int from, int to, boolean onlyIfLast) {
        int count = PageLayout.countAt(address);
        int chain = PageLayout.pagesAt(address);
        int n = onlyIfLast && chain > 1 ? 0 : Math.min(capacity - count, to - from);
        if (n <= 0) {
            return chain & 0xFFFF_FFFFL;
        }
        for (int i = 0; i < n; i++) {
            PageLayout.residueAt(address, count + i, BlockTables.residue(fps[from + i], table));
        }
        // Ordered after the residues: the count publishes them, even to a recovery after a crash.
        PageLayout.countOrderedAt(address, count + n);
        return (long) n << 32 | chain;
    }

    /** appendInPlace on a page with an entry checksum: under its entry's lock, which updates the checksum after. */
    private long appendInPlaceSlowPath(int table, int block, int page, long[] fps, int from, int to, boolean onlyIfLast) {
        try (ExternalMapQueryContext<Long, byte[], ?> c = pages.lock(table, block, page)) {
            if (c == null) {
                return ABSENT;
            }
            MapEntry<Long, byte[]> e = c.entry();
            Data<byte[]> v = e.value();
            long answer = appendAt(v.bytes().addressForRead(v.offset()), geometry.capacity(page), table, fps, from, to, onlyIfLast);
            pages.written(page, e);
            return answer;
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

    /** Applies {@code write} in place to an existing page. */
    private void edit(int table, int block, int page, PageWrite write) {
        try (ExternalMapQueryContext<Long, byte[], ?> c = pages.lock(table, block, page)) {
            if (c == null) {
                throw missingPage(table, block, page);
            }
            MapEntry<Long, byte[]> e = c.entry();
            Data<byte[]> v = e.value();
            write.apply((BytesStore<?, ?>) v.bytes(), v.offset());
            pages.written(page, e);
        }
    }

    private boolean containsSlowPath(int table, int block, long residue) {
        for (int p = 0, n = pages.chainLength(table, block); p < n; p++) {
            if (slotOf(pages.address(table, block, p), residue) >= 0) {
                return true;
            }
        }
        return false;
    }

    /** Removes {@code fp} from its bucket of {@code table}; false if it was not there. */
    public boolean remove(int table, long fp) {
        if (packed != null) {
            return packed.remove(table, fp);
        }
        int block = BlockTables.block(fp, table);
        long residue = BlockTables.residue(fp, table);
        StampedLock lock = stripe(table, block);
        long stamp = lock.writeLock();
        try {
            checkOpen();
            int chain = pages.chainLength(table, block);
            int holePage = -1;
            int holeSlot = -1;
            for (int p = 0; p < chain && holePage < 0; p++) {
                holeSlot = slotOf(pages.address(table, block, p), residue);
                holePage = holeSlot >= 0 ? p : -1;
            }
            if (holePage < 0) {
                return false;
            }
            int lastIndex = chain - 1;
            long last = pages.address(table, block, lastIndex);
            if (last == 0) {
                throw missingPage(table, block, lastIndex);
            }
            int lastCount = PageLayout.countAt(last);
            // Fill the hole with the bucket's last residue so pages stay dense, then drop the
            // last slot (the order is what makes a crash harmless: see the class comment).
            if (holePage != lastIndex || holeSlot != lastCount - 1) {
                setResidue(table, block, holePage, holeSlot, PageLayout.residueAt(last, lastCount - 1));
            }
            if (lastCount - 1 > 0) {
                setInt(table, block, lastIndex, PageLayout.COUNT_OFFSET, lastCount - 1);
            } else if (lastIndex == 0) {
                pages.remove(table, block, 0);
            } else {
                // Unlinked first: a crash then leaves an unreachable page, which the next new page replaces.
                setInt(table, block, 0, PageLayout.PAGES_OFFSET, chain - 1);
                pages.remove(table, block, lastIndex);
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
        if (packed != null) {
            return packed.fingerprints(table, block);
        }
        StampedLock lock = stripe(table, block);
        long stamp = lock.readLock();
        try {
            checkOpen();
            long[] out = residues(table, block);
            for (int i = 0; i < out.length; i++) {
                out[i] = BlockTables.fingerprint(table, block, out[i]);
            }
            return out;
        } finally {
            lock.unlockRead(stamp);
        }
    }

    /** Empties bucket (table, block), deleting its pages; returns how many entries it held. */
    public int clear(int table, int block) {
        if (packed != null) {
            int removed = 0;
            for (long fp : packed.fingerprints(table, block)) {
                removed += packed.remove(table, fp) ? 1 : 0;
            }
            return removed;
        }
        StampedLock lock = stripe(table, block);
        long stamp = lock.writeLock();
        try {
            checkOpen();
            int removed = 0;
            // Page 0 first: a crash midway leaves unreachable pages, never a chain with holes.
            for (int p = 0, n = pages.chainLength(table, block); p < n; p++) {
                long address = pages.address(table, block, p);
                removed += address == 0 ? 0 : PageLayout.countAt(address);
                pages.remove(table, block, p);
            }
            entries.addAndGet(-removed);
            return removed;
        } finally {
            lock.unlockWrite(stamp);
        }
    }

    /** Residues stored across all buckets. */
    public long entries() {
        return packed != null ? packed.entries() : entries.get();
    }

    /** Off-heap bytes the base and overflow maps occupy. */
    public long offHeapBytes() {
        return packed != null ? packed.bytes() : pages.offHeapBytes();
    }

    /** Pages stored, base and overflow: more than buckets in use means chains have grown. 0 for packed tables. */
    public long pages() {
        return packed != null ? 0 : pages.count();
    }

    /** Residues packed tables gained since they were last packed, which a compaction packs; 0 for tables in pages. */
    public long unpacked() {
        return packed != null ? packed.unpacked() : 0;
    }

    public TableGeometry geometry() {
        return geometry;
    }

    /** Waits for probes in flight (every stripe's write lock), then unmaps: no probe reads a page address after. */
    @Override
    public void close() {
        // Stripes never used are made here, so that a later call locks the one this close held.
        long[] stamps = new long[STRIPES];
        for (int i = 0; i < STRIPES; i++) {
            stamps[i] = stripes.of(i).writeLock();
        }
        try {
            CLOSED.setVolatile(this, true);
            if (packed != null) {
                packed.close();
            } else {
                pages.close();
            }
        } finally {
            for (int i = 0; i < STRIPES; i++) {
                stripes.of(i).unlockWrite(stamps[i]);
            }
        }
    }

    /**
     * Throws once {@link #close} has run; the caller holds a stripe lock, which orders this read
     * after the close. Every path checks it, writers too: the pages' remembered addresses point
     * into files the close unmapped, and reading one kills the JVM (SIGSEGV) instead of failing.
     */
    private void checkOpen() {
        if (closed) {
            throw closedTable();
        }
    }

    /** {@link #checkOpen} for a call that holds no stripe lock: a volatile read orders it after the close. */
    private void checkOpenVolatile() {
        if ((boolean) CLOSED.getVolatile(this)) {
            throw closedTable();
        }
    }

    private static IllegalStateException closedTable() {
        return new IllegalStateException("bucket table closed (its generation expired or the node is stopping)");
    }

    /** The slot of {@code residue} in the page at {@code address}, or -1 (also for a missing page, address 0). */
    private static int slotOf(long address, long residue) {
        for (int i = 0, count = address == 0 ? 0 : PageLayout.countAt(address); i < count; i++) {
            if (PageLayout.residueAt(address, i) == residue) {
                return i;
            }
        }
        return -1;
    }

    private static IllegalStateException missingPage(int table, int block, int page) {
        return new IllegalStateException("page " + page + " of bucket (" + table + ", " + block + ") is missing from its chain");
    }

    private StampedLock stripe(int table, int block) {
        return stripes.of(BlockTables.bucketKey(table, block));
    }
}
