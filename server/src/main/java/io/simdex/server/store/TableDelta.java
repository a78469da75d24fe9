package io.simdex.server.store;

import io.simdex.fingerprint.BlockTables;
import net.openhft.chronicle.core.OS;
import net.openhft.chronicle.core.UnsafeMemory;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;
import java.util.stream.Stream;

/**
 * The fingerprints a shard's tables gained since their {@link PackedTable} was written: by
 * bucket in the heap, for probes, and in an append-only log of mapped files ({@code NAME-K.log}),
 * from which they are rebuilt when the store opens. Its bytes follow what it holds (16 bytes a
 * logged change, in files that double from 64 KB to 4 MB, and the heap's arrays), where pages cost a page for every bucket touched, which
 * a delta of a fraction of the packed table's size touches nearly all of.
 *
 * <h2>Log</h2>
 * A record is 16 bytes: the fingerprint, its table, add or remove, and a check of the three,
 * written last and ordered after them. An append claims its slot by one atomic add, so appends
 * of different buckets do not wait for each other; those of one bucket are made under its stripe
 * lock (the caller's), so their order in the log is theirs. A kill leaves a record whole, or
 * with a check that does not match (never written, or cut), which replay skips: its change was
 * not acknowledged. Mapped memory outlives the process, so this keeps what a kill -9 would lose;
 * what an OS crash loses is the write-ahead log's to redo.
 *
 * <h2>Concurrency</h2>
 * The caller holds bucket (table, block)'s stripe write lock to change it, and its read lock to
 * read it, as {@link BucketTable} does for its pages.
 */
final class TableDelta implements Closeable {
    static final int RECORD_BYTES = 16;
    /**
     * Bytes of the first log file; each next one is twice the one before, up to
     * {@link #MAX_FILE_BYTES}. Files are mapped whole, so a store's first change maps 64 KB.
     */
    static final long FIRST_FILE_BYTES = 64L << 10;
    static final long MAX_FILE_BYTES = 4L << 20;
    /** Files of a size below the largest: 64 KB .. 2 MB. */
    private static final int GROWING_FILES = Long.numberOfTrailingZeros(MAX_FILE_BYTES / FIRST_FILE_BYTES);
    /** Records in the growing files, all together. */
    private static final long GROWING_RECORDS = (MAX_FILE_BYTES - FIRST_FILE_BYTES) / RECORD_BYTES;
    private static final byte ADD = 1;
    private static final byte REMOVE = 2;
    private static final int CHUNK_BITS = 10;
    private static final UnsafeMemory MEMORY = UnsafeMemory.MEMORY;

    private final Path dir;
    private final String name;
    private static final java.lang.invoke.VarHandle CHUNKS = java.lang.invoke.MethodHandles.arrayElementVarHandle(Chunk[].class);

    /** By bucket key, in chunks of 1,024 keys made when a key of theirs is first written: the bucket's fingerprints. */
    private final Chunk[] chunks = new Chunk[PackedTable.BUCKET_KEYS >>> CHUNK_BITS];
    private final AtomicLong size = new AtomicLong();
    /** The next record's index over all log files. */
    private final AtomicLong next = new AtomicLong();
    private final List<Long> files = new ArrayList<>();
    private volatile long[] addresses = new long[0];
    private boolean closed;

    /** Opens the delta logged as {@code dir/NAME-K.log}, replaying what those files hold; an empty one when there are none. */
    TableDelta(Path dir, String name) {
        this.dir = dir;
        this.name = name;
        try {
            Files.createDirectories(dir);
            int count = logFiles(dir, name).size();
            long replayed = 0;
            for (int k = 0; k < count; k++) {
                long address = map(k);
                long records = fileBytes(k) / RECORD_BYTES;
                for (int r = 0; r < records; r++) {
                    long at = address + (long) r * RECORD_BYTES;
                    long fp = MEMORY.readLong(at);
                    byte table = MEMORY.readByte(at + 8);
                    byte op = MEMORY.readByte(at + 9);
                    if (MEMORY.readInt(at + 12) != check(fp, table, op) || table < 0 || table >= BlockTables.TABLES) {
                        continue;
                    }
                    replayed = firstRecord(k) + r + 1;
                    if (op == ADD) {
                        put(table, fp);
                    } else {
                        take(table, fp);
                    }
                }
            }
            next.set(replayed);
        } catch (IOException e) {
            close();
            throw new UncheckedIOException(e);
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /** The log files of the delta {@code name} in {@code dir}, by number. */
    static List<Path> logFiles(Path dir, String name) throws IOException {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        List<Path> out = new ArrayList<>();
        for (int k = 0; Files.exists(dir.resolve(name + "-" + k + ".log")); k++) {
            out.add(dir.resolve(name + "-" + k + ".log"));
        }
        try (Stream<Path> all = Files.list(dir)) {
            long named = all.filter(p -> p.getFileName().toString().matches(java.util.regex.Pattern.quote(name) + "-\\d+\\.log")).count();
            if (named != out.size()) {
                throw new IllegalStateException(dir + ": log files of " + name + " are not numbered 0.." + (named - 1));
            }
        }
        return out;
    }

    /** Adds {@code fp} to its bucket of {@code table}: logged, then held. The caller holds the bucket's stripe write lock. */
    void add(int table, long fp) {
        log(table, fp, ADD);
        put(table, fp);
    }

    /** Removes {@code fp} from its bucket of {@code table} if the delta holds it; returns whether it did. The caller holds the write lock. */
    boolean remove(int table, long fp) {
        if (!contains(table, fp)) {
            return false;
        }
        log(table, fp, REMOVE);
        take(table, fp);
        return true;
    }

    /** Whether the delta holds {@code fp} in its bucket of {@code table}. The caller holds the bucket's stripe lock. */
    boolean contains(int table, long fp) {
        int key = BlockTables.bucketKey(table, BlockTables.block(fp, table));
        long[] held = bucket(key);
        int n = count(key);
        for (int i = 0; i < n; i++) {
            if (held[i] == fp) {
                return true;
            }
        }
        return false;
    }

    /**
     * Adds to {@code out} every fingerprint of bucket (table, block) within {@code maxDistance}
     * of {@code residue} (a residue of that table). The caller holds the bucket's stripe lock.
     */
    void probe(int table, int block, long residue, int maxDistance, MatchBuffer out) {
        int key = BlockTables.bucketKey(table, block);
        long[] held = bucket(key);
        int n = count(key);
        for (int i = 0; i < n; i++) {
            if (Long.bitCount(BlockTables.residue(held[i], table) ^ residue) <= maxDistance) {
                out.add(held[i]);
            }
        }
    }

    /**
     * The first of {@link PackedBuckets#prefetch}'s two reads of bucket key {@code key}: its
     * array's reference and its count. Made without the bucket's lock, so only read.
     */
    int touchSlot(int key) {
        Chunk chunk = chunk(key);
        if (chunk == null) {
            return 0;
        }
        int slot = key & ((1 << CHUNK_BITS) - 1);
        return chunk.counts[slot] + (chunk.fps[slot] == null ? 0 : 1);
    }

    /**
     * The second: the bucket's fingerprints, a line in eight. A writer may have replaced the
     * array meanwhile, so the count is capped at the array read.
     */
    long touchBucket(int key) {
        long[] held = bucket(key);
        if (held == null) {
            return 0;
        }
        int n = Math.min(count(key), held.length);
        long sum = 0;
        for (int i = 0; i < n; i += 8) {
            sum += held[i];
        }
        return n > 0 ? sum + held[n - 1] : sum;
    }

    /** Calls {@code action} with every fingerprint of bucket (table, block). The caller holds its stripe lock. */
    void forEach(int table, int block, LongConsumer action) {
        int key = BlockTables.bucketKey(table, block);
        long[] held = bucket(key);
        for (int i = 0, n = count(key); i < n; i++) {
            action.accept(held[i]);
        }
    }

    /** The name its log files start with. */
    String name() {
        return name;
    }

    /** Fingerprints held, over all buckets. */
    long size() {
        return size.get();
    }

    /** Bytes of the log files. */
    long bytes() {
        synchronized (files) {
            long bytes = 0;
            for (int k = 0; k < files.size(); k++) {
                bytes += fileBytes(k);
            }
            return bytes;
        }
    }

    /** Unmaps the log; the caller makes sure no thread appends or reads meanwhile. */
    @Override
    public void close() {
        synchronized (files) {
            if (closed) {
                return;
            }
            closed = true;
            for (int k = 0; k < addresses.length; k++) {
                try {
                    OS.unmap(addresses[k], fileBytes(k));
                } catch (IOException ignored) {
                    // the mapping goes with the process
                }
            }
        }
    }

    /** Closes the delta and deletes its log files: once a packed table holds what it held. */
    void delete() throws IOException {
        close();
        for (Path p : logFiles(dir, name)) {
            Files.delete(p);
        }
    }

    private void log(int table, long fp, byte op) {
        long index = next.getAndIncrement();
        int k = fileOf(index);
        long[] mapped = addresses;
        long address = k < mapped.length ? mapped[k] : mapSlowPath(k);
        long at = address + (index - firstRecord(k)) * RECORD_BYTES;
        MEMORY.writeLong(at, fp);
        MEMORY.writeByte(at + 8, (byte) table);
        MEMORY.writeByte(at + 9, op);
        MEMORY.writeOrderedInt(at + 12, check(fp, (byte) table, op));
    }

    /** Bytes of log file {@code k}. */
    static long fileBytes(int k) {
        return k < GROWING_FILES ? FIRST_FILE_BYTES << k : MAX_FILE_BYTES;
    }

    /** The index of log file {@code k}'s first record. */
    private static long firstRecord(int k) {
        return k <= GROWING_FILES ? ((FIRST_FILE_BYTES << k) - FIRST_FILE_BYTES) / RECORD_BYTES
                : GROWING_RECORDS + (long) (k - GROWING_FILES) * (MAX_FILE_BYTES / RECORD_BYTES);
    }

    /** The log file that holds record {@code index}. */
    private static int fileOf(long index) {
        if (index >= GROWING_RECORDS) {
            return GROWING_FILES + (int) ((index - GROWING_RECORDS) / (MAX_FILE_BYTES / RECORD_BYTES));
        }
        return 63 - Long.numberOfLeadingZeros(index * RECORD_BYTES / FIRST_FILE_BYTES + 1);
    }

    private long mapSlowPath(int k) {
        try {
            return map(k);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The address of log file {@code k}, made (zeroed, {@link #fileBytes}) and mapped if it is not yet; files before it first. */
    private long map(int k) throws IOException {
        synchronized (files) {
            if (closed) {
                throw new IllegalStateException("table delta " + dir.resolve(name) + " is closed");
            }
            while (addresses.length <= k) {
                int n = addresses.length;
                Path file = dir.resolve(name + "-" + n + ".log");
                long address;
                try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                    long bytes = fileBytes(n);
                    if (ch.size() == 0) {
                        // Sized with zeros, which never pass a record's check. Empty: made by a
                        // process killed before it sized the file.
                        ch.write(java.nio.ByteBuffer.allocate(1), bytes - 1);
                    } else if (ch.size() != bytes) {
                        throw new IllegalStateException(file + ": " + ch.size() + " bytes, log file " + n + " has " + bytes);
                    }
                    address = OS.map(ch, FileChannel.MapMode.READ_WRITE, 0, bytes);
                }
                long[] grown = Arrays.copyOf(addresses, n + 1);
                grown[n] = address;
                files.add(address);
                addresses = grown;
            }
            return addresses[k];
        }
    }

    /** A record's check: never 0, so a slot never written fails it. */
    static int check(long fp, byte table, byte op) {
        long h = (fp ^ ((long) table << 56) ^ ((long) op << 48)) * 0x9E3779B97F4A7C15L;
        int c = (int) (h ^ (h >>> 32));
        return c == 0 ? 1 : c;
    }

    private void put(int table, long fp) {
        int key = BlockTables.bucketKey(table, BlockTables.block(fp, table));
        int slot = key & ((1 << CHUNK_BITS) - 1);
        Chunk chunk = chunk(key);
        if (chunk == null) {
            // Buckets of other stripes share the chunk: one thread makes it, the others take it.
            CHUNKS.compareAndSet(chunks, key >>> CHUNK_BITS, null, new Chunk());
            chunk = chunk(key);
        }
        long[] held = chunk.fps[slot];
        int n = chunk.counts[slot];
        if (held == null || n == held.length) {
            held = Arrays.copyOf(held == null ? new long[0] : held, Math.max(4, n * 2));
            chunk.fps[slot] = held;
        }
        held[n] = fp;
        chunk.counts[slot] = n + 1;
        size.incrementAndGet();
    }

    /** The fingerprints of 1,024 bucket keys; each bucket's slots are read and written under its stripe lock. */
    private static final class Chunk {
        final long[][] fps = new long[1 << CHUNK_BITS][];
        final int[] counts = new int[1 << CHUNK_BITS];
    }

    private Chunk chunk(int key) {
        return (Chunk) CHUNKS.getAcquire(chunks, key >>> CHUNK_BITS);
    }

    private void take(int table, long fp) {
        int key = BlockTables.bucketKey(table, BlockTables.block(fp, table));
        long[] held = bucket(key);
        int n = count(key);
        for (int i = 0; i < n; i++) {
            if (held[i] == fp) {
                held[i] = held[n - 1];
                chunk(key).counts[key & ((1 << CHUNK_BITS) - 1)] = n - 1;
                size.decrementAndGet();
                return;
            }
        }
    }

    private long[] bucket(int key) {
        Chunk chunk = chunk(key);
        return chunk == null ? null : chunk.fps[key & ((1 << CHUNK_BITS) - 1)];
    }

    private int count(int key) {
        Chunk chunk = chunk(key);
        return chunk == null ? 0 : chunk.counts[key & ((1 << CHUNK_BITS) - 1)];
    }
}
