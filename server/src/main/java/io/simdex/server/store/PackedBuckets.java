package io.simdex.server.store;

import io.simdex.core.io.DurableFiles;
import io.simdex.fingerprint.BlockTables;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.StampedLock;
import java.util.stream.Stream;

/**
 * A shard's four tables as a {@link PackedTable} (the run) and a {@link TableDelta} of what they
 * gained since it was written: the same operations as {@link BucketTable}'s pages, at 6 bytes a
 * residue once compacted.
 *
 * <h2>Compaction</h2>
 * {@link #compact} writes a new run from the run's residues not removed and the delta's, while
 * writes go on:
 * <ol>
 *   <li>under every stripe's write lock, the delta is frozen and a new one takes the writes;
 *       the manifest names the run and both deltas;</li>
 *   <li>bucket by bucket, under its stripe's read lock, the run's and the frozen delta's
 *       residues are written to the new run; a remove made meanwhile of one of theirs is
 *       recorded;</li>
 *   <li>under every stripe's write lock, the recorded removes are made in the new run, which
 *       replaces the old, and the manifest names it and the new delta;</li>
 *   <li>the old run and the frozen delta's log are deleted.</li>
 * </ol>
 * A store opened with a manifest that names two deltas (a compaction a kill cut short) finishes
 * it before it serves; files the manifest does not name are what such a compaction left, and go.
 *
 * <h2>Concurrency</h2>
 * As {@link BucketTable}: a bucket's writers hold its stripe's write lock, its readers the read
 * lock; compaction's switches hold every stripe's write lock, so no reader holds a run or a
 * delta they unmap.
 */
final class PackedBuckets implements Closeable {
    private static final Logger LOG = LoggerFactory.getLogger(PackedBuckets.class);
    private static final int STRIPES = 4096;
    static final String MANIFEST = "packed.manifest";

    private final Path dir;
    private final LockStripes<StampedLock> stripes = new LockStripes<>(STRIPES, StampedLock::new);
    private final AtomicLong entries = new AtomicLong();
    private final Object compaction = new Object();
    /** Removes made while a compaction writes, of residues of the run or the frozen delta: (table, fingerprint) pairs. */
    private final List<long[]> removedMeanwhile = new ArrayList<>();
    private PackedTable run;
    /** Replaced under every stripe's write lock; volatile for {@link #compactionDue}, which reads it without one. */
    private volatile TableDelta delta;
    private TableDelta frozen;
    private long sequence;
    private boolean closed;
    /** When a write was last noted ({@link PackedCompactions#afterWrite}), by System.nanoTime. */
    volatile long lastWriteNanos = System.nanoTime();
    /** Whether a check for an idle compaction is scheduled ({@link PackedCompactions#afterWrite}). */
    final AtomicBoolean idleCheckScheduled = new AtomicBoolean();

    PackedBuckets(Path dir) {
        this.dir = dir;
        try {
            Files.createDirectories(dir);
            Manifest m = Manifest.read(dir);
            sequence = m.sequence();
            run = m.run() == null ? null : PackedTable.open(dir.resolve(m.run()));
            if (m.deltas().size() > 2 || m.deltas().isEmpty()) {
                throw new IllegalStateException(dir.resolve(MANIFEST) + ": " + m.deltas().size() + " deltas");
            }
            delta = new TableDelta(dir, m.deltas().get(m.deltas().size() - 1));
            frozen = m.deltas().size() == 2 ? new TableDelta(dir, m.deltas().get(0)) : null;
            deleteUnnamed(m);
            if (m.deltas().size() == 1 && !Files.exists(dir.resolve(MANIFEST))) {
                m.write(dir);
            }
            entries.set(live(run) + delta.size() + (frozen == null ? 0 : frozen.size()));
            if (frozen != null) {
                pack(); // a compaction a kill cut short
            }
        } catch (IOException e) {
            close();
            throw new UncheckedIOException(e);
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    private static long live(PackedTable run) {
        return run == null ? 0 : run.live();
    }

    /** Adds to {@code out} every fingerprint of bucket (table, block(fp)) within {@code maxDistance} of {@code fp}. */
    void probe(int table, long fp, int maxDistance, MatchBuffer out) {
        int block = BlockTables.block(fp, table);
        long residue = BlockTables.residue(fp, table);
        StampedLock lock = stripe(table, block);
        long stamp = lock.readLock();
        try {
            checkOpen();
            // As prefetch does for a window, for this one bucket: the run's directory entry and the
            // deltas' slots, then the residues and the deltas' arrays. Within a pass the loads are
            // independent, so their misses overlap; the scans below would meet them one by one
            // (a bucket of the delta is three or four misses of its own). In store-bench at 10M
            // this raised the ratio to the ideal index from 0.53 to 0.61 with a delta of a few
            // million residues, and from 0.81 to 0.93 once it was packed.
            int key = BlockTables.bucketKey(table, block);
            out.keep(touchDirectory(key));
            out.keep((int) touchContents(key));
            if (run != null) {
                run.probe(table, block, residue, maxDistance, out);
            }
            if (frozen != null) {
                frozen.probe(table, block, residue, maxDistance, out);
            }
            delta.probe(table, block, residue, maxDistance, out);
        } finally {
            lock.unlockRead(stamp);
        }
    }

    /**
     * Brings in what {@link #probe} of each bucket (tables[i], block(fps[i])), i below
     * {@code count}, reads, as {@link BucketTable#prefetch} does for pages: first each bucket's
     * directory entry in the run and its slot in the deltas, then its residues and fingerprints.
     * Within a pass the loads depend on nothing before them, so their misses overlap; a probe
     * meets them one after another (directory entry, then residues). One stripe's read lock,
     * held meanwhile, keeps a compaction from unmapping the run; the buckets' own stripes are
     * not taken, so what is read here may be changing, and is only read. Returns a sum for the
     * caller to keep, so that the JIT keeps the reads.
     */
    int prefetch(int[] tables, long[] fps, int count) {
        if (count == 0) {
            return 0;
        }
        StampedLock guard = stripe(tables[0], BlockTables.block(fps[0], tables[0]));
        long stamp = guard.readLock();
        try {
            if (closed) {
                return 0;
            }
            long sum = 0;
            for (int i = 0; i < count; i++) {
                sum += touchDirectory(BlockTables.bucketKey(tables[i], BlockTables.block(fps[i], tables[i])));
            }
            for (int i = 0; i < count; i++) {
                sum += touchContents(BlockTables.bucketKey(tables[i], BlockTables.block(fps[i], tables[i])));
            }
            return (int) (sum ^ (sum >>> 32));
        } finally {
            guard.unlockRead(stamp);
        }
    }

    /** The first pass over bucket key {@code key}: its directory entry in the run, its slots in the deltas. */
    private int touchDirectory(int key) {
        return (run == null ? 0 : run.touchStart(key)) + delta.touchSlot(key) + (frozen == null ? 0 : frozen.touchSlot(key));
    }

    /** The second: its residues in the run, its fingerprints in the deltas. */
    private long touchContents(int key) {
        return (run == null ? 0 : run.touchResidues(key)) + delta.touchBucket(key) + (frozen == null ? 0 : frozen.touchBucket(key));
    }

    /** Adds {@code fp} to its bucket of {@code table}; false if it was there already. */
    boolean add(int table, long fp) {
        int block = BlockTables.block(fp, table);
        StampedLock lock = stripe(table, block);
        long stamp = lock.writeLock();
        try {
            checkOpen();
            if (holds(table, block, fp)) {
                return false;
            }
            delta.add(table, fp);
            entries.incrementAndGet();
            return true;
        } finally {
            lock.unlockWrite(stamp);
        }
    }

    /** Adds {@code fps[from..to)}, all new and all of one bucket of {@code table}. */
    void addAll(int table, long[] fps, int from, int to) {
        if (from >= to) {
            return;
        }
        int block = BlockTables.block(fps[from], table);
        StampedLock lock = stripe(table, block);
        long stamp = lock.writeLock();
        try {
            checkOpen();
            for (int i = from; i < to; i++) {
                if (BlockTables.block(fps[i], table) != block) {
                    throw new IllegalArgumentException("fingerprints " + from + ".." + (to - 1) + " span more than one bucket of table " + table);
                }
            }
            for (int i = from; i < to; i++) {
                delta.add(table, fps[i]);
            }
            entries.addAndGet(to - from);
        } finally {
            lock.unlockWrite(stamp);
        }
    }

    /** Removes {@code fp} from its bucket of {@code table}; false if it was not there. */
    boolean remove(int table, long fp) {
        int block = BlockTables.block(fp, table);
        StampedLock lock = stripe(table, block);
        long stamp = lock.writeLock();
        try {
            checkOpen();
            boolean removed = delta.remove(table, fp);
            if (!removed && frozen != null && frozen.remove(table, fp)) {
                recordMeanwhile(table, fp);
                removed = true;
            }
            if (!removed && run != null && run.remove(table, block, BlockTables.residue(fp, table))) {
                if (frozen != null) {
                    recordMeanwhile(table, fp);
                }
                removed = true;
            }
            if (removed) {
                entries.decrementAndGet();
            }
            return removed;
        } finally {
            lock.unlockWrite(stamp);
        }
    }

    /** The fingerprints of bucket (table, block). */
    long[] fingerprints(int table, int block) {
        StampedLock lock = stripe(table, block);
        long stamp = lock.readLock();
        try {
            checkOpen();
            return collect(table, block);
        } finally {
            lock.unlockRead(stamp);
        }
    }

    /** Residues stored across all buckets. */
    long entries() {
        return entries.get();
    }

    /** Bytes of the run and the deltas' logs. */
    long bytes() {
        long stamp = stripes.of(0).readLock();
        try {
            return (run == null ? 0 : run.bytes()) + (closed ? 0 : delta.bytes() + (frozen == null ? 0 : frozen.bytes()));
        } finally {
            stripes.of(0).unlockRead(stamp);
        }
    }

    /** Fingerprints the delta holds: what the next compaction packs. */
    long deltaSize() {
        long stamp = stripes.of(0).readLock();
        try {
            return delta.size();
        } finally {
            stripes.of(0).unlockRead(stamp);
        }
    }

    /** Fingerprints not in the run: the delta's, and while a compaction packs them, the frozen delta's. */
    long unpacked() {
        long stamp = stripes.of(0).readLock();
        try {
            return delta.size() + (frozen == null ? 0 : frozen.size());
        } finally {
            stripes.of(0).unlockRead(stamp);
        }
    }

    /** Fingerprints a delta holds at least before it is compacted. */
    static final long MIN_DELTA = 65_536;
    /**
     * Fingerprints a delta holds at most before it is compacted, whatever the tables hold: the
     * delta lives in the heap, at up to 16 bytes a fingerprint (its arrays double), so a shard's
     * is at most 64 MB (twice that while a compaction packs the frozen one).
     */
    static final long MAX_DELTA = 4L << 20;

    /**
     * Whether the delta holds more than a quarter of what the tables hold, at least
     * {@link #MIN_DELTA} and at most {@link #MAX_DELTA}. A compaction rewrites the run, so a
     * delta of a quarter writes each residue about five times while a store grows; about eight
     * times in a shard that grows to 50M residues (a 50M-document embedded store's), which the
     * cap compacts more often.
     */
    boolean compactionDue() {
        // Without a lock: it is asked after every add, and stripe 0's lock word, taken by every
        // writer, would move between their cores. The delta read just before a compaction
        // switches it may answer true once more, while that compaction is still queued, so
        // PackedCompactions.submit adds none.
        return delta.size() > Math.max(MIN_DELTA, Math.min(entries() / 4, MAX_DELTA));
    }

    /**
     * Whether tables that have had no write for a while should be compacted though not due: their
     * delta holds at least a 64th of what they hold (any delta of small tables). Below that a
     * compaction would rewrite the run for little; such deltas wait for the next due one.
     */
    boolean idleCompactionDue() {
        long delta = deltaSize();
        return delta > 0 && delta >= entries() / 64;
    }

    /** Packs the run and the delta into a new run (see the class comment); one compaction at a time. */
    void compact() {
        synchronized (compaction) {
            long[] stamps = lockAll();
            try {
                checkOpen();
                frozen = delta;
                sequence++;
                delta = new TableDelta(dir, "delta-" + sequence);
                new Manifest(sequence, run == null ? null : run.file().getFileName().toString(),
                        List.of(frozenName(), "delta-" + sequence)).write(dir);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } finally {
                unlockAll(stamps);
            }
            pack();
        }
    }

    private String frozenName() {
        return frozen.name();
    }

    /** Steps 2 to 4 of a compaction, the delta frozen. */
    private void pack() {
        long t0 = System.nanoTime();
        long fromDelta = frozen.size();
        Path file = dir.resolve("run-" + sequence + ".packed");
        try {
            PackedTable.write(file, out -> {
                long[] residues = new long[64];
                for (int key = 0; key < PackedTable.BUCKET_KEYS; key++) {
                    int table = key >>> BlockTables.BLOCK_BITS;
                    int block = key & ((1 << BlockTables.BLOCK_BITS) - 1);
                    long[] fps;
                    StampedLock lock = stripe(table, block);
                    long stamp = lock.readLock();
                    try {
                        checkOpen();
                        fps = packed(table, block);
                    } finally {
                        lock.unlockRead(stamp);
                    }
                    if (fps.length > 0) {
                        if (residues.length < fps.length) {
                            residues = new long[fps.length * 2];
                        }
                        for (int i = 0; i < fps.length; i++) {
                            residues[i] = BlockTables.residue(fps[i], table);
                        }
                        out.accept(key, residues, fps.length);
                    }
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        PackedTable old;
        TableDelta packedDelta;
        long[] stamps = lockAll();
        try {
            checkOpen();
            PackedTable fresh = PackedTable.open(file);
            synchronized (removedMeanwhile) {
                for (long[] r : removedMeanwhile) {
                    int table = (int) r[0];
                    fresh.remove(table, BlockTables.block(r[1], table), BlockTables.residue(r[1], table));
                }
                if (!removedMeanwhile.isEmpty()) {
                    // On disk before the manifest names the file: a write-ahead log checkpoint
                    // that forced the old run's removal bits may already have dropped the
                    // records of these removes, and an OS crash must not bring them back.
                    DurableFiles.force(PackedTable.removedFile(file));
                }
                removedMeanwhile.clear();
            }
            new Manifest(sequence, file.getFileName().toString(), List.of(delta.name())).write(dir);
            old = run;
            packedDelta = frozen;
            run = fresh;
            frozen = null;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            unlockAll(stamps);
        }
        try {
            if (old != null) {
                old.close();
                Files.deleteIfExists(old.file());
                Files.deleteIfExists(PackedTable.removedFile(old.file()));
            }
            packedDelta.delete();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        LOG.info("{}: packed a delta of {} residues into a run of {} in {} ms", dir, fromDelta, run.live(),
                (System.nanoTime() - t0) / 1_000_000);
    }

    /** What a compaction packs of bucket (table, block): the run's fingerprints not removed and the frozen delta's. */
    private long[] packed(int table, int block) {
        LongList out = new LongList();
        if (run != null) {
            run.forEach(table, block, out::add);
        }
        frozen.forEach(table, block, out::add);
        return out.toArray();
    }

    private long[] collect(int table, int block) {
        LongList out = new LongList();
        if (run != null) {
            run.forEach(table, block, out::add);
        }
        if (frozen != null) {
            frozen.forEach(table, block, out::add);
        }
        delta.forEach(table, block, out::add);
        return out.toArray();
    }

    private boolean holds(int table, int block, long fp) {
        return delta.contains(table, fp) || frozen != null && frozen.contains(table, fp)
                || run != null && run.contains(table, block, BlockTables.residue(fp, table));
    }

    private void recordMeanwhile(int table, long fp) {
        synchronized (removedMeanwhile) {
            removedMeanwhile.add(new long[] {table, fp});
        }
    }

    @Override
    public void close() {
        long[] stamps = lockAll();
        try {
            if (closed) {
                return;
            }
            closed = true;
            if (run != null) {
                run.close();
            }
            if (delta != null) {
                delta.close();
            }
            if (frozen != null) {
                frozen.close();
            }
        } finally {
            unlockAll(stamps);
        }
        // A compaction running meanwhile stops at its next bucket, or finishes deleting the run
        // and delta it replaced. Waiting for it lets a caller delete the directory once this
        // returns; otherwise the tree's delete and the compaction's own deletes race.
        synchronized (compaction) {
            // nothing to do: the compaction holds this monitor until it has stopped
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("packed tables " + dir + " are closed");
        }
    }

    private long[] lockAll() {
        long[] stamps = new long[STRIPES];
        for (int i = 0; i < STRIPES; i++) {
            stamps[i] = stripes.of(i).writeLock();
        }
        return stamps;
    }

    private void unlockAll(long[] stamps) {
        for (int i = 0; i < STRIPES; i++) {
            stripes.of(i).unlockWrite(stamps[i]);
        }
    }

    private StampedLock stripe(int table, int block) {
        return stripes.of(BlockTables.bucketKey(table, block));
    }

    /** Deletes the runs and delta logs the manifest does not name: what a compaction cut short left. */
    private void deleteUnnamed(Manifest m) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            for (Path p : (Iterable<Path>) files::iterator) {
                String name = p.getFileName().toString();
                boolean runFile = name.startsWith("run-") && (name.endsWith(".packed") || name.endsWith(".packed.removed")
                        || name.endsWith(".tmp"));
                boolean deltaFile = name.startsWith("delta-") && name.endsWith(".log");
                boolean named = m.run() != null && (name.equals(m.run()) || name.equals(m.run() + ".removed"))
                        || m.deltas().stream().anyMatch(d -> name.startsWith(d + "-"));
                if ((runFile || deltaFile) && !named) {
                    Files.delete(p);
                }
            }
        }
    }

    /** The manifest: the run (or none) and the deltas, oldest first, and the sequence new files are numbered from. */
    record Manifest(long sequence, String run, List<String> deltas) {
        static Manifest read(Path dir) throws IOException {
            Path file = dir.resolve(MANIFEST);
            if (!Files.exists(file)) {
                return new Manifest(0, null, List.of("delta-0"));
            }
            java.util.Properties p = new java.util.Properties();
            try (java.io.Reader r = Files.newBufferedReader(file)) {
                p.load(r);
            }
            String run = p.getProperty("run", "");
            return new Manifest(Long.parseLong(p.getProperty("sequence")), run.isEmpty() ? null : run,
                    Arrays.asList(p.getProperty("deltas").split(",")));
        }

        void write(Path dir) throws IOException {
            DurableFiles.replace(dir.resolve(MANIFEST), "sequence=" + sequence + "\nrun=" + (run == null ? "" : run)
                    + "\ndeltas=" + String.join(",", deltas) + "\n");
        }
    }

    /** A growable long list. */
    private static final class LongList {
        private long[] values = new long[16];
        private int size;

        void add(long v) {
            if (size == values.length) {
                values = Arrays.copyOf(values, size * 2);
            }
            values[size++] = v;
        }

        long[] toArray() {
            return Arrays.copyOf(values, size);
        }
    }
}
