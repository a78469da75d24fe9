package io.simdex.server.store;

import io.simdex.fingerprint.BlockTables;
import net.openhft.chronicle.bytes.BytesStore;
import net.openhft.chronicle.core.UnsafeMemory;

/**
 * Byte layout of one bucket page: a fixed-size Chronicle Map value holding up to
 * {@code capacity} 48-bit residues of one (table, block) bucket.
 *
 * <pre>
 *   0        4        8                                           8 + 6*cap     + 2
 *   +--------+--------+----------+----------+-----+----------------+-------------+
 *   | count  | pages  | residue0 | residue1 | ... | residue(cap-1) | pad (2 B)   |
 *   +--------+--------+----------+----------+-----+----------------+-------------+
 *   count    int32 LE: residues used in this page, 0..cap (slots count..cap-1 are garbage)
 *   pages    int32 LE: on page 0 only, the number of pages of the bucket; 0 elsewhere
 *   residueI 6 bytes LE: the fingerprint with the bucket's block cut out (BlockTables.residue)
 *   pad      2 bytes so that an 8-byte read at the last residue stays inside the value
 * </pre>
 * Why 6-byte residues: the bucket key already stores the 16-bit block, so a full 8-byte
 * fingerprint would waste 2 bytes in each of the 4 tables. Why fixed pages: Chronicle Map wants
 * entries near their configured size, and a growing bucket stored as one value would be
 * rewritten whole on every insert; here an insert rewrites one page.
 *
 * <p>Pages are read in place, in the mapped file, through the {@code ...At(address)} readers;
 * heap copies ({@code byte[]}) are for building a new page and for tests.
 */
final class PageLayout {
    private static final UnsafeMemory MEMORY = UnsafeMemory.MEMORY;

    static final int COUNT_OFFSET = 0;
    static final int PAGES_OFFSET = 4;
    static final int HEADER_BYTES = 8;
    static final int RESIDUE_BYTES = BlockTables.RESIDUE_BITS / Byte.SIZE;
    static final int PAD_BYTES = Long.BYTES - RESIDUE_BYTES;
    static final long RESIDUE_MASK = (1L << BlockTables.RESIDUE_BITS) - 1;

    private PageLayout() {
    }

    /** Bytes of a page value with room for {@code capacity} residues. */
    static int pageBytes(int capacity) {
        return HEADER_BYTES + capacity * RESIDUE_BYTES + PAD_BYTES;
    }

    /** Offset of residue {@code slot} from the start of the page. */
    static int residueOffset(int slot) {
        return HEADER_BYTES + slot * RESIDUE_BYTES;
    }

    /** The count field of the page at off-heap {@code address}. */
    static int countAt(long address) {
        return MEMORY.readInt(address + COUNT_OFFSET);
    }

    /** The pages field of the page at off-heap {@code address}. */
    static int pagesAt(long address) {
        return MEMORY.readInt(address + PAGES_OFFSET);
    }

    /** Residue {@code slot} of the page at off-heap {@code address}: one 8-byte read, which the pad keeps inside the page. */
    static long residueAt(long address, int slot) {
        return MEMORY.readLong(address + residueOffset(slot)) & RESIDUE_MASK;
    }

    static int count(byte[] page) {
        return readInt(page, COUNT_OFFSET);
    }

    static void count(byte[] page, int count) {
        writeInt(page, COUNT_OFFSET, count);
    }

    static int pages(byte[] page) {
        return readInt(page, PAGES_OFFSET);
    }

    static void pages(byte[] page, int pages) {
        writeInt(page, PAGES_OFFSET, pages);
    }

    static long residue(byte[] page, int slot) {
        int off = residueOffset(slot);
        long v = 0;
        for (int i = RESIDUE_BYTES - 1; i >= 0; i--) {
            v = (v << 8) | (page[off + i] & 0xFF);
        }
        return v;
    }

    /** Writes a residue at byte {@code at} of mapped or wrapped page bytes (little-endian, as Chronicle Map's memory is). */
    static void residue(BytesStore<?, ?> bytes, long at, long residue) {
        bytes.writeInt(at, (int) residue);
        bytes.writeShort(at + Integer.BYTES, (short) (residue >>> Integer.SIZE));
    }

    /** Writes residue {@code slot} of the page at off-heap {@code address} (6 bytes, as {@link #residue(BytesStore, long, long)}). */
    static void residueAt(long address, int slot, long residue) {
        long at = address + residueOffset(slot);
        MEMORY.writeInt(at, (int) residue);
        MEMORY.writeShort(at + Integer.BYTES, (short) (residue >>> Integer.SIZE));
    }

    /** Sets the count field of the page at off-heap {@code address}, ordered after every earlier write. */
    static void countOrderedAt(long address, int count) {
        MEMORY.writeOrderedInt(address + COUNT_OFFSET, count);
    }

    static void residue(byte[] page, int slot, long residue) {
        int off = residueOffset(slot);
        for (int i = 0; i < RESIDUE_BYTES; i++) {
            page[off + i] = (byte) (residue >>> (8 * i));
        }
    }

    /** Checks a page read from disk: counts in range. Returns a reason, or null when valid. */
    static String validate(byte[] page, int capacity, boolean first) {
        if (page.length != pageBytes(capacity)) {
            return "page of " + page.length + " bytes, expected " + pageBytes(capacity);
        }
        int count = count(page);
        if (count < 0 || count > capacity) {
            return "count " + count + " outside 0.." + capacity;
        }
        int pages = pages(page);
        if (first ? pages < 1 : pages != 0) {
            return "pages field " + pages + " on " + (first ? "first" : "later") + " page";
        }
        return null;
    }

    private static int readInt(byte[] b, int off) {
        return (b[off] & 0xFF) | (b[off + 1] & 0xFF) << 8 | (b[off + 2] & 0xFF) << 16 | (b[off + 3] & 0xFF) << 24;
    }

    private static void writeInt(byte[] b, int off, int v) {
        b[off] = (byte) v;
        b[off + 1] = (byte) (v >>> 8);
        b[off + 2] = (byte) (v >>> 16);
        b[off + 3] = (byte) (v >>> 24);
    }
}
