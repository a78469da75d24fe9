package io.simdex.server.store;

import io.simdex.core.io.DurableFiles;
import io.simdex.fingerprint.BlockTables;
import net.openhft.chronicle.core.OS;
import net.openhft.chronicle.core.UnsafeMemory;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.function.LongConsumer;

/**
 * The residues of every bucket of a shard's four tables, packed in one immutable file with no
 * room to spare: 6 bytes a residue, each bucket's sorted, and a directory of 4 bytes a bucket
 * that holds any. Where a bucket of pages ({@link BucketPages}) keeps room for its mean plus two
 * standard deviations in fixed-size pages, half again the residues of a bucket of 15 (a
 * 1M-document store's), this keeps none; it is written once, from residues already known.
 *
 * <p>Residues are taken out by a bit of a removal bitmap beside it ({@code NAME.removed}, one bit
 * a residue, written in place), never by rewriting the file.
 *
 * <h2>Layout</h2>
 * Little-endian, as the mapped memory is read:
 * <pre>
 *   0       magic "SDXPACK1"
 *   8       int   bucket keys (4 x 65536)
 *   12      int   buckets present (P)
 *   16      long  residues (R)
 *   24      long  offset of the starts
 *   32..63  reserved (0)
 *   64      present bitmap: one bit a bucket key, 4096 longs
 *   32832   rank: buckets present before each bitmap word, 4096 ints
 *   49216   residues: R x 6 bytes, by bucket key, sorted within a bucket; 2 bytes of pad
 *   starts  (P + 1) ints: the index of each present bucket's first residue, then R
 * </pre>
 * A bucket key is looked up by its bit and the rank of its word: no search, two cache lines.
 * A file holds fewer than 2^31 residues (a shard of about 500M documents); a shard with more
 * needs more than one.
 */
final class PackedTable implements Closeable {
    static final long MAGIC = 0x314b434150584453L; // "SDXPACK1", little-endian
    static final int BUCKET_KEYS = BlockTables.TABLES << BlockTables.BLOCK_BITS;
    private static final int HEADER_BYTES = 64;
    private static final int WORDS = BUCKET_KEYS >>> 6;
    static final long BITMAP_OFFSET = HEADER_BYTES;
    static final long RANK_OFFSET = BITMAP_OFFSET + (long) WORDS * Long.BYTES;
    static final long RESIDUES_OFFSET = RANK_OFFSET + (long) WORDS * Integer.BYTES;
    private static final int RESIDUE_BYTES = PageLayout.RESIDUE_BYTES;
    private static final UnsafeMemory MEMORY = UnsafeMemory.MEMORY;

    private final Path file;
    private final long address;
    private final long size;
    private final long removedAddress;
    private final long removedSize;
    private final long residues;
    private final long startsAddress;
    /** Residues whose removal bit is set: counted when opened, then by {@link #remove}. */
    private final java.util.concurrent.atomic.AtomicLong removedCount = new java.util.concurrent.atomic.AtomicLong();
    private volatile boolean closed;

    private PackedTable(Path file, long address, long size, long removedAddress, long removedSize) {
        this.file = file;
        this.address = address;
        this.size = size;
        this.removedAddress = removedAddress;
        this.removedSize = removedSize;
        this.residues = MEMORY.readLong(address + 16);
        this.startsAddress = address + MEMORY.readLong(address + 24);
        long removed = 0;
        for (long at = 0; at < removedSize; at += Long.BYTES) {
            removed += Long.bitCount(MEMORY.readLong(removedAddress + at));
        }
        removedCount.set(removed);
    }

    /** The buckets of a table to write, by ascending bucket key. */
    interface Buckets {
        /**
         * Passes every non-empty bucket to {@code out}, by ascending {@link BlockTables#bucketKey};
         * the residues array may be reused between calls, its first {@code count} are the bucket's.
         */
        void forEach(BucketSink out) throws IOException;
    }

    interface BucketSink {
        void accept(int bucketKey, long[] residues, int count) throws IOException;
    }

    /**
     * Writes {@code buckets} to {@code file} (and its removal bitmap, all clear), each forced to
     * disk before it is renamed into place: a reader finds the whole file or none.
     */
    static void write(Path file, Buckets buckets) throws IOException {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        long[] bitmap = new long[WORDS];
        IntList starts = new IntList();
        long written;
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer out = ByteBuffer.allocateDirect(1 << 20).order(ByteOrder.LITTLE_ENDIAN);
            long[] position = {RESIDUES_OFFSET};
            long[] count = {0};
            int[] last = {-1};
            buckets.forEach((bucketKey, residues, n) -> {
                if (bucketKey <= last[0] || bucketKey >= BUCKET_KEYS) {
                    throw new IllegalArgumentException("bucket key " + bucketKey + " after " + last[0]);
                }
                last[0] = bucketKey;
                if (n == 0) {
                    return;
                }
                long[] sorted = Arrays.copyOf(residues, n);
                Arrays.sort(sorted);
                if (count[0] + n >= Integer.MAX_VALUE) {
                    throw new IllegalArgumentException("more than 2^31 residues in one packed table");
                }
                bitmap[bucketKey >>> 6] |= 1L << bucketKey;
                starts.add((int) count[0]);
                count[0] += n;
                for (long r : sorted) {
                    if (out.remaining() < RESIDUE_BYTES) {
                        position[0] += drain(ch, out, position[0]);
                    }
                    out.putInt((int) r).putShort((short) (r >>> Integer.SIZE));
                }
            });
            out.putShort((short) 0); // pad: an 8-byte read at the last residue stays inside the file
            position[0] += drain(ch, out, position[0]);
            long startsOffset = position[0];
            starts.add((int) count[0]);
            for (int i = 0; i < starts.size(); i++) {
                if (out.remaining() < Integer.BYTES) {
                    position[0] += drain(ch, out, position[0]);
                }
                out.putInt(starts.get(i));
            }
            position[0] += drain(ch, out, position[0]);
            written = count[0];

            ByteBuffer head = ByteBuffer.allocate((int) RESIDUES_OFFSET).order(ByteOrder.LITTLE_ENDIAN);
            head.putLong(MAGIC).putInt(BUCKET_KEYS).putInt(starts.size() - 1).putLong(written).putLong(startsOffset);
            head.position(HEADER_BYTES);
            int present = 0;
            for (long word : bitmap) {
                head.putLong(word);
            }
            for (long word : bitmap) {
                head.putInt(present);
                present += Long.bitCount(word);
            }
            head.flip();
            while (head.hasRemaining()) {
                ch.write(head, head.position());
            }
            ch.force(true);
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(tmp);
            throw e;
        }
        // The removal bitmap first: a table found is one whose bitmap is there.
        DurableFiles.replace(removedFile(file), new byte[removedBytes(written)]);
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        DurableFiles.syncDirectory(file.toAbsolutePath().getParent());
    }

    private static int drain(FileChannel ch, ByteBuffer out, long position) throws IOException {
        out.flip();
        int n = out.remaining();
        long at = position;
        while (out.hasRemaining()) {
            at += ch.write(out, at);
        }
        out.clear();
        return n;
    }

    static Path removedFile(Path file) {
        return file.resolveSibling(file.getFileName() + ".removed");
    }

    /** Bytes of a removal bitmap of {@code residues} bits, in whole longs. */
    private static int removedBytes(long residues) {
        return (int) (((residues + 63) >>> 6) * Long.BYTES);
    }

    /** Maps {@code file} (read only) and its removal bitmap (read and write). */
    static PackedTable open(Path file) {
        long address = 0;
        long size = 0;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ);
             FileChannel removed = FileChannel.open(removedFile(file), StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            size = ch.size();
            if (size < RESIDUES_OFFSET + 2) {
                throw new IllegalStateException(file + ": " + size + " bytes, too short for a packed table");
            }
            address = OS.map(ch, FileChannel.MapMode.READ_ONLY, 0, size);
            String bad = validate(address, size);
            if (bad == null && removed.size() != removedBytes(MEMORY.readLong(address + 16))) {
                bad = "removal bitmap of " + removed.size() + " bytes for " + MEMORY.readLong(address + 16) + " residues";
            }
            if (bad != null) {
                throw new IllegalStateException(file + ": " + bad);
            }
            long removedSize = removed.size();
            long removedAddress = removedSize == 0 ? 0 : OS.map(removed, FileChannel.MapMode.READ_WRITE, 0, removedSize);
            return new PackedTable(file, address, size, removedAddress, removedSize);
        } catch (IOException e) {
            unmapQuietly(address, size);
            throw new UncheckedIOException(e);
        } catch (RuntimeException e) {
            unmapQuietly(address, size);
            throw e;
        }
    }

    /** Why the mapped file is not a packed table, or null. */
    private static String validate(long address, long size) {
        if (MEMORY.readLong(address) != MAGIC) {
            return "not a packed table (magic)";
        }
        if (MEMORY.readInt(address + 8) != BUCKET_KEYS) {
            return "bucket keys " + MEMORY.readInt(address + 8) + ", expected " + BUCKET_KEYS;
        }
        int present = MEMORY.readInt(address + 12);
        long residues = MEMORY.readLong(address + 16);
        long starts = MEMORY.readLong(address + 24);
        long expected = starts + (present + 1L) * Integer.BYTES;
        if (present < 0 || residues < 0 || starts != RESIDUES_OFFSET + residues * RESIDUE_BYTES + 2 || expected != size) {
            return "header (" + present + " buckets, " + residues + " residues, starts at " + starts + ") does not fit " + size + " bytes";
        }
        if (MEMORY.readInt(address + starts + (long) present * Integer.BYTES) != residues) {
            return "last start is not the residue count";
        }
        return null;
    }

    private static void unmapQuietly(long address, long size) {
        if (address != 0) {
            try {
                OS.unmap(address, size);
            } catch (IOException ignored) {
                // the mapping goes with the process
            }
        }
    }

    /**
     * Adds to {@code out} every residue of bucket (table, block) within {@code maxDistance} of
     * {@code residue} and not removed, as a fingerprint. Allocation-free once {@code out} has grown.
     */
    void probe(int table, int block, long residue, int maxDistance, MatchBuffer out) {
        int bucket = BlockTables.bucketKey(table, block);
        int index = presentIndex(bucket);
        if (index < 0) {
            return;
        }
        long from = start(index);
        long to = start(index + 1);
        long at = address + RESIDUES_OFFSET + from * RESIDUE_BYTES;
        for (long i = from; i < to; i++, at += RESIDUE_BYTES) {
            long stored = MEMORY.readLong(at) & PageLayout.RESIDUE_MASK;
            if (Long.bitCount(stored ^ residue) <= maxDistance && !removed(i)) {
                out.add(BlockTables.fingerprint(table, block, stored));
            }
        }
    }

    /**
     * The first of {@link PackedBuckets#prefetch}'s two reads of bucket key {@code bucket}: its
     * directory entry, which depends only on the bitmap and rank (48 KB, which stay cached).
     * Returns what it read, for the caller to keep.
     */
    int touchStart(int bucket) {
        int index = presentIndex(bucket);
        return index < 0 ? 0 : MEMORY.readInt(startsAddress + (long) index * Integer.BYTES);
    }

    /** The second: the bucket's residues, whose range the first brought in. */
    int touchResidues(int bucket) {
        int index = presentIndex(bucket);
        if (index < 0) {
            return 0;
        }
        long residuesAt = address + RESIDUES_OFFSET;
        return BucketTable.touch(residuesAt + start(index) * RESIDUE_BYTES, residuesAt + start(index + 1) * RESIDUE_BYTES);
    }

    /** Calls {@code action} with every fingerprint of bucket (table, block) not removed. */
    void forEach(int table, int block, LongConsumer action) {
        int index = presentIndex(BlockTables.bucketKey(table, block));
        if (index < 0) {
            return;
        }
        for (long i = start(index), to = start(index + 1); i < to; i++) {
            if (!removed(i)) {
                action.accept(BlockTables.fingerprint(table, block, residueAt(i)));
            }
        }
    }

    /** Whether bucket (table, block) holds {@code residue}, not removed. */
    boolean contains(int table, int block, long residue) {
        long i = find(table, block, residue);
        return i >= 0 && !removed(i);
    }

    /**
     * Takes {@code residue} out of bucket (table, block): sets its bit in the removal bitmap, one
     * atomic word update, so a kill leaves it set or clear. Returns whether it was there and not
     * removed before.
     */
    boolean remove(int table, int block, long residue) {
        long i = find(table, block, residue);
        if (i < 0) {
            return false;
        }
        long word = removedAddress + (i >>> 6) * Long.BYTES;
        long bit = 1L << i;
        while (true) {
            long old = MEMORY.readVolatileLong(word);
            if ((old & bit) != 0) {
                return false;
            }
            if (MEMORY.compareAndSwapLong(word, old, old | bit)) {
                removedCount.incrementAndGet();
                return true;
            }
        }
    }

    /** Residues in the file not removed. */
    long live() {
        return residues - removedCount.get();
    }

    /** Residues in the file, removed or not. */
    long residues() {
        return residues;
    }

    /** Bytes of the file and its removal bitmap. */
    long bytes() {
        return size + removedSize;
    }

    Path file() {
        return file;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        unmapQuietly(address, size);
        unmapQuietly(removedAddress, removedSize);
    }

    /** Index of {@code residue} in its bucket, by binary search of the sorted bucket, or -1. */
    private long find(int table, int block, long residue) {
        int index = presentIndex(BlockTables.bucketKey(table, block));
        if (index < 0) {
            return -1;
        }
        long lo = start(index);
        long hi = start(index + 1) - 1;
        while (lo <= hi) {
            long mid = (lo + hi) >>> 1;
            long r = residueAt(mid);
            if (r < residue) {
                lo = mid + 1;
            } else if (r > residue) {
                hi = mid - 1;
            } else {
                return mid;
            }
        }
        return -1;
    }

    /** The bucket's index among the present buckets, or -1 when it holds nothing. */
    private int presentIndex(int bucket) {
        int w = bucket >>> 6;
        long word = MEMORY.readLong(address + BITMAP_OFFSET + (long) w * Long.BYTES);
        long bit = 1L << bucket;
        if ((word & bit) == 0) {
            return -1;
        }
        return MEMORY.readInt(address + RANK_OFFSET + (long) w * Integer.BYTES) + Long.bitCount(word & (bit - 1));
    }

    private long start(int index) {
        return MEMORY.readInt(startsAddress + (long) index * Integer.BYTES) & 0xFFFFFFFFL;
    }

    private long residueAt(long i) {
        return MEMORY.readLong(address + RESIDUES_OFFSET + i * RESIDUE_BYTES) & PageLayout.RESIDUE_MASK;
    }

    private boolean removed(long i) {
        return removedAddress != 0 && (MEMORY.readLong(removedAddress + (i >>> 6) * Long.BYTES) & 1L << i) != 0;
    }

    /** A growable int list, for the starts while the residues stream out. */
    private static final class IntList {
        private int[] values = new int[1024];
        private int size;

        void add(int v) {
            if (size == values.length) {
                values = Arrays.copyOf(values, size * 2);
            }
            values[size++] = v;
        }

        int get(int i) {
            return values[i];
        }

        int size() {
            return size;
        }
    }
}
