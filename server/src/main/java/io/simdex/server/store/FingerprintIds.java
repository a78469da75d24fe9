package io.simdex.server.store;

import net.openhft.chronicle.map.ChronicleMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.Closeable;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongPredicate;
import java.util.function.ObjLongConsumer;

/**
 * fingerprint -> ids, at any number of ids per fingerprint for the cost of a few.
 *
 * <p>Almost every fingerprint has one id: its ids are one value of the {@code fps} map, joined
 * by '\n' (ids hold no control characters, checked at the API). Past {@link #SMALL_MAX} ids a
 * fingerprint turns <em>hot</em>: its value becomes a header (count, level, split) and its ids
 * spread over a linear hash of its own in the {@code hot} map, keyed (fingerprint, bucket), about
 * {@link #BUCKET_IDS} ids a bucket. Adding or removing the millionth id of a page copied a million
 * times rewrites one bucket, like the first (one value holding them all hit Chronicle Map's
 * entry size limit at 15,000 ids, and slowed down quadratically before that); listing
 * {@code limit} of them reads about {@code limit / BUCKET_IDS + 1} buckets.
 *
 * <p>Crash safety: each step is one map write, ordered so that a process killed between two
 * leaves every id findable. A split writes the new bucket before the header counts it, then
 * trims the old one; a merge fills the partner before the header drops the last bucket. An id
 * left in a bucket it no longer hashes to (a trim the crash cut off) is ignored by readers, and
 * dropped when that bucket is next split or merged, so it cannot come back after its id was
 * removed. A header's count can be one short after a crash cut a write between its bucket and
 * its header; a store opened after a crash counts hot fingerprints' ids again
 * ({@link #recountHot}), so {@code total} is exact.
 *
 * <p>A map write itself is made whole by {@link RedoSlots}: every rewrite of an entry that
 * holds ids (or a header) is recorded first, since Chronicle Map's recovery drops an entry
 * killed halfway through its rewrite, and a dropped header took all of a hot fingerprint's ids
 * with it. Only a fingerprint's first id skips the record: its entry holds nothing older, and
 * the write that a crash cuts short was not acknowledged.
 */
final class FingerprintIds implements Closeable {
    /** A fingerprint with more ids than this is hot. */
    static final int SMALL_MAX = 16;
    /** A hot fingerprint's average ids per bucket before a bucket splits; merged below a quarter of it. */
    static final int BUCKET_IDS = 64;
    private static final char SEPARATOR = '\n';
    /** First character of a hot fingerprint's header: a control character, so never an id's. */
    private static final char HOT = '\u0001';
    private static final int LOCKS = 256;
    private static final Logger LOG = LoggerFactory.getLogger(FingerprintIds.class);

    private static final byte PUT_FPS = 0;
    private static final byte REMOVE_FPS = 1;
    private static final byte PUT_BUCKET = 2;
    private static final byte REMOVE_BUCKET = 3;

    private final GrowingMap<Long, String> fps;
    private final Buckets hot;
    private final RedoSlots redo;
    private final ReentrantLock[] locks = new ReentrantLock[LOCKS];
    /** Runs between a redo record and its map write: tests throw here to cut a write where a kill would. */
    private WriteCut beforeMapWrite = (fp, bucket, recorded) -> { };

    FingerprintIds(GrowingMap<Long, String> fps, Path dir, int averageIdBytes, boolean clean) {
        this.fps = fps;
        String sampleBucket = ("x".repeat(Math.max(1, averageIdBytes)) + SEPARATOR).repeat(BUCKET_IDS);
        this.hot = new Buckets(GrowingMap.onFirstWrite(dir, "hot", 1024, n -> ChronicleMap.of(byte[].class, byte[].class).entries(n)
                .constantKeySizeBySample(new byte[12]).averageValue(sampleBucket.getBytes(StandardCharsets.UTF_8)).maxBloatFactor(2.0),
                clean));
        for (int i = 0; i < LOCKS; i++) {
            locks[i] = new ReentrantLock();
        }
        Path redoFile = dir.resolve("fps.redo");
        int redone = 0;
        if (clean) {
            RedoSlots.discard(redoFile);
        } else {
            redone = RedoSlots.replay(redoFile, this::redo);
        }
        this.redo = new RedoSlots(redoFile, LOCKS);
        if (redone > 0) {
            LOG.warn("{}: redid {} fingerprint-id writes a crash cut short", dir, redone);
        }
        if (!clean) {
            recountHot();
        }
    }

    /**
     * Sets each hot header's count to the ids its buckets hold: a kill between an id's bucket
     * write and its header's leaves the count one short, and the retried attach finds the id
     * already there. Reads the hot map once, which holds hot fingerprints' ids only.
     */
    private void recountHot() {
        java.util.Map<Long, Header> headers = new java.util.HashMap<>();
        java.util.Map<Long, long[]> counted = new java.util.HashMap<>();
        hot.forEach((fp, bucket, joined) -> {
            Header h = headers.computeIfAbsent(fp, f -> {
                String value = fps.get(f);
                return value != null && isHot(value) ? Header.parse(value) : null;
            });
            if (h != null && bucket < h.buckets()) {
                counted.computeIfAbsent(fp, f -> new long[1])[0] += placedIds(joined, h, bucket).size();
            }
        });
        counted.forEach((fp, n) -> {
            Header h = headers.get(fp);
            if (h.count != n[0]) {
                putFps(fp, new Header(n[0], h.level, h.split).toString());
            }
        });
    }

    /** Adds {@code id} to {@code fp}; true when {@code fp} had no ids before. */
    boolean attach(long fp, String id) {
        ReentrantLock lock = lock(fp);
        lock.lock();
        try {
            String value = fps.get(fp);
            if (value == null || value.isEmpty()) {
                fps.put(fp, id); // the first id: nothing older to lose, no redo record
                return true;
            }
            if (isHot(value)) {
                addHot(fp, Header.parse(value), id);
                return false;
            }
            if (indexOf(value, id) >= 0) {
                return false;
            }
            if (count(value) < SMALL_MAX) {
                putFps(fp, value + SEPARATOR + id);
            } else {
                // The bucket first: a crash before the header leaves the small value, and a retry redoes both.
                String joined = value + SEPARATOR + id;
                putBucket(fp, 0, joined);
                putFps(fp, new Header(SMALL_MAX + 1, 0, 0).toString());
            }
            return false;
        } finally {
            lock.unlock();
        }
    }

    /** Removes {@code id} from {@code fp}; true when {@code fp} has no ids left. */
    boolean detach(long fp, String id) {
        ReentrantLock lock = lock(fp);
        lock.lock();
        try {
            String value = fps.get(fp);
            if (value == null) {
                return true;
            }
            if (isHot(value)) {
                return removeHot(fp, Header.parse(value), id);
            }
            int at = indexOf(value, id);
            if (at < 0) {
                return false;
            }
            String rest = without(value, at, id.length());
            if (rest.isEmpty()) {
                fps.remove(fp); // held this id only: nothing else to lose, no redo record
                return true;
            }
            putFps(fp, rest);
            return false;
        } finally {
            lock.unlock();
        }
    }

    /** Up to {@code limit} ids of {@code fp} (0: all), and how many it has. */
    DocMaps.IdList ids(long fp, int limit) {
        String value = fps.get(fp);
        if (value == null || value.isEmpty()) {
            return DocMaps.IdList.NONE;
        }
        if (!isHot(value)) {
            String[] all = split(value);
            return new DocMaps.IdList(limit > 0 && all.length > limit ? java.util.Arrays.copyOf(all, limit) : all, all.length);
        }
        ReentrantLock lock = lock(fp);
        lock.lock();
        try {
            value = fps.get(fp);
            if (value == null || !isHot(value)) {
                return ids(fp, limit);
            }
            Header h = Header.parse(value);
            List<String> out = new ArrayList<>(limit > 0 ? (int) Math.min(limit, h.count) : (int) Math.min(h.count, 1 << 20));
            for (int b = 0; b < h.buckets() && (limit <= 0 || out.size() < limit); b++) {
                for (String id : split(hot.get(fp, b))) {
                    if (h.bucketOf(id) == b && (limit <= 0 || out.size() < limit)) {
                        out.add(id);
                    }
                }
            }
            return new DocMaps.IdList(out.toArray(String[]::new), h.count);
        } finally {
            lock.unlock();
        }
    }

    /** Calls {@code action} with every (id, fingerprint) pair. */
    void forEach(ObjLongConsumer<String> action) {
        fps.forEach((fp, value) -> {
            String[] ids = isHot(value) ? ids(fp, 0).ids() : split(value);
            for (String id : ids) {
                action.accept(id, fp);
            }
        });
    }

    /** Removes the ids of every fingerprint {@code drop} accepts; returns how many (fp, id) pairs. */
    long removeIf(LongPredicate drop) {
        java.util.Set<Long> hotDropped = new java.util.HashSet<>();
        long[] pairs = {0};
        fps.removeIf((fp, value) -> {
            if (!drop.test(fp)) {
                return false;
            }
            if (isHot(value)) {
                hotDropped.add(fp);
                pairs[0] += Header.parse(value).count;
            } else {
                pairs[0] += count(value);
            }
            return true;
        });
        if (!hotDropped.isEmpty()) {
            // By key, not by header: buckets a crashed split or merge orphaned go too.
            hot.removeIf(hotDropped::contains);
        }
        return pairs[0];
    }

    /** The maps, for tests that set up what a crash leaves. */
    GrowingMap<Long, String> fps() {
        return fps;
    }

    Buckets hot() {
        return hot;
    }

    void beforeMapWrite(WriteCut cut) {
        beforeMapWrite = cut;
    }

    /**
     * Told of each map write twice, before its redo record and before the write itself: its
     * fingerprint, and its bucket or -1 for the fps entry.
     */
    interface WriteCut {
        void before(long fp, int bucket, boolean recorded);
    }

    long fingerprints() {
        return fps.size();
    }

    long offHeapBytes() {
        return fps.offHeapBytes() + hot.offHeapBytes();
    }

    @Override
    public void close() {
        redo.close();
        fps.close();
        hot.close();
    }

    private void addHot(long fp, Header h, String id) {
        int b = h.bucketOf(id);
        String kept = hot.get(fp, b);
        if (kept != null && indexOf(kept, id) >= 0) {
            return;
        }
        putBucket(fp, b, kept == null || kept.isEmpty() ? id : kept + SEPARATOR + id);
        Header after = new Header(h.count + 1, h.level, h.split);
        if (after.count > (long) BUCKET_IDS * after.buckets()) {
            split(fp, after); // writes the header
        } else {
            putFps(fp, after.toString());
        }
    }

    /** Whether {@code fp} has no ids left. */
    private boolean removeHot(long fp, Header h, String id) {
        int b = h.bucketOf(id);
        String kept = hot.get(fp, b);
        int at = kept == null ? -1 : indexOf(kept, id);
        if (at < 0) {
            return false;
        }
        putOrRemove(fp, b, without(kept, at, id.length()));
        Header after = new Header(h.count - 1, h.level, h.split);
        if (after.count <= 0) {
            removeFps(fp);
            for (int i = 0; i < h.buckets(); i++) {
                removeBucket(fp, i);
            }
            return true;
        }
        if (after.buckets() > 1 && after.count < (long) BUCKET_IDS * after.buckets() / 4) {
            after = merge(fp, after);
        }
        if (after.buckets() == 1 && after.count <= SMALL_MAX / 2) {
            // Small again: the joined value replaces the header, then the orphaned bucket goes.
            List<String> left = placedIds(hot.get(fp, 0), after, 0);
            if (left.isEmpty()) {
                removeFps(fp);
            } else {
                putFps(fp, String.join(String.valueOf(SEPARATOR), left));
            }
            removeBucket(fp, 0);
            return left.isEmpty();
        }
        putFps(fp, after.toString());
        return false;
    }

    /** Splits bucket {@code h.split} into itself and a new last bucket, and stores the header that counts it. */
    private void split(long fp, Header h) {
        int from = h.split;
        int to = (1 << h.level) + h.split;
        Header after = h.split + 1 == 1 << h.level ? new Header(h.count, h.level + 1, 0) : new Header(h.count, h.level, h.split + 1);
        List<String> stay = new ArrayList<>();
        List<String> move = new ArrayList<>();
        for (String id : placedIds(hot.get(fp, from), h, from)) {
            (after.bucketOf(id) == to ? move : stay).add(id);
        }
        putOrRemove(fp, to, join(move));
        putFps(fp, after.toString());
        putOrRemove(fp, from, join(stay));
    }

    /** Merges the last bucket into its partner; returns the header without it. */
    private Header merge(long fp, Header h) {
        Header after = h.split == 0 ? new Header(h.count, h.level - 1, (1 << (h.level - 1)) - 1) : new Header(h.count, h.level, h.split - 1);
        int last = h.buckets() - 1;
        int partner = after.split;
        List<String> joined = new ArrayList<>(placedIds(hot.get(fp, partner), h, partner));
        joined.addAll(placedIds(hot.get(fp, last), h, last));
        putOrRemove(fp, partner, join(joined));
        putFps(fp, after.toString());
        removeBucket(fp, last);
        return after;
    }

    private void putOrRemove(long fp, int bucket, String joined) {
        if (joined.isEmpty()) {
            removeBucket(fp, bucket);
        } else {
            putBucket(fp, bucket, joined);
        }
    }

    private static String join(List<String> ids) {
        return String.join(String.valueOf(SEPARATOR), ids);
    }

    // Each write below holds lock(fp): the stripe's redo slot is its own until it clears it.

    private void putFps(long fp, String value) {
        write(PUT_FPS, fp, -1, value.getBytes(StandardCharsets.UTF_8), () -> fps.put(fp, value));
    }

    private void removeFps(long fp) {
        write(REMOVE_FPS, fp, -1, null, () -> fps.remove(fp));
    }

    private void putBucket(long fp, int bucket, String joined) {
        byte[] bytes = joined.getBytes(StandardCharsets.UTF_8);
        write(PUT_BUCKET, fp, bucket, bytes, () -> hot.put(fp, bucket, bytes));
    }

    private void removeBucket(long fp, int bucket) {
        write(REMOVE_BUCKET, fp, bucket, null, () -> hot.remove(fp, bucket));
    }

    /** Records a map write in the stripe's redo slot, makes it, clears the slot. */
    private void write(byte kind, long fp, int bucket, byte[] value, Runnable mapWrite) {
        beforeMapWrite.before(fp, bucket, false);
        redo.record(stripe(fp), record(kind, fp, bucket, value));
        beforeMapWrite.before(fp, bucket, true);
        mapWrite.run();
        redo.clear(stripe(fp));
    }

    /** A redo record: kind, fingerprint, bucket, value bytes (none for a remove). */
    private static ByteBuffer record(byte kind, long fp, int bucket, byte[] value) {
        ByteBuffer b = ByteBuffer.allocate(13 + (value == null ? 0 : value.length));
        b.put(kind).putLong(fp).putInt(Math.max(0, bucket));
        if (value != null) {
            b.put(value);
        }
        return b.flip();
    }

    /** Redoes one record of a write a crash may have cut (see {@link RedoSlots}). */
    private void redo(ByteBuffer r) {
        byte kind = r.get(0);
        long fp = r.getLong(1);
        int bucket = r.getInt(9);
        byte[] value = new byte[r.limit() - 13];
        r.get(13, value);
        switch (kind) {
            case PUT_FPS -> fps.put(fp, new String(value, StandardCharsets.UTF_8));
            case REMOVE_FPS -> fps.remove(fp);
            case PUT_BUCKET -> hot.put(fp, bucket, value);
            case REMOVE_BUCKET -> hot.remove(fp, bucket);
            default -> throw new IllegalStateException("redo record of unknown kind " + kind);
        }
    }

    private static List<String> placedIds(String joined, Header h, int b) {
        List<String> out = new ArrayList<>();
        for (String id : split(joined)) {
            if (h.bucketOf(id) == b) {
                out.add(id);
            }
        }
        return out;
    }

    /**
     * The {@code hot} map: (fingerprint, bucket) -> the bucket's ids joined, stored as UTF-8
     * bytes. Bytes, not a String value: Chronicle Map encodes and decodes a String a character at
     * a time, which made writing one id into a bucket of 64 cost about 100 us.
     */
    static final class Buckets implements Closeable {
        private final GrowingMap<byte[], byte[]> map;

        Buckets(GrowingMap<byte[], byte[]> map) {
            this.map = map;
        }

        String get(long fp, int bucket) {
            byte[] v = map.get(key(fp, bucket));
            return v == null ? null : new String(v, StandardCharsets.UTF_8);
        }

        void put(long fp, int bucket, String joined) {
            put(fp, bucket, joined.getBytes(StandardCharsets.UTF_8));
        }

        void put(long fp, int bucket, byte[] joined) {
            map.put(key(fp, bucket), joined);
        }

        void remove(long fp, int bucket) {
            map.remove(key(fp, bucket));
        }

        /** Calls {@code action} with every bucket: its fingerprint, number and ids joined. */
        void forEach(BucketAction action) {
            map.forEach((k, v) -> {
                ByteBuffer key = ByteBuffer.wrap(k);
                action.accept(key.getLong(0), key.getInt(8), new String(v, StandardCharsets.UTF_8));
            });
        }

        interface BucketAction {
            void accept(long fp, int bucket, String joined);
        }

        /** Removes every bucket of the fingerprints {@code drop} accepts. */
        void removeIf(java.util.function.LongPredicate drop) {
            map.removeIf((k, v) -> drop.test(ByteBuffer.wrap(k).getLong(0)));
        }

        long size() {
            return map.size();
        }

        long offHeapBytes() {
            return map.offHeapBytes();
        }

        @Override
        public void close() {
            map.close();
        }
    }

    /** A hot fingerprint's header: its id count, and its linear hash's level and split pointer ({@code 2^level + split} buckets). */
    record Header(long count, int level, int split) {
        static Header parse(String value) {
            int a = value.indexOf(',');
            int b = value.indexOf(',', a + 1);
            return new Header(Long.parseLong(value, 1, a, 10), Integer.parseInt(value, a + 1, b, 10),
                    Integer.parseInt(value, b + 1, value.length(), 10));
        }

        int buckets() {
            return (1 << level) + split;
        }

        int bucketOf(String id) {
            long h = idHash(id);
            int b = (int) (h & ((1L << level) - 1));
            return b < split ? (int) (h & ((1L << (level + 1)) - 1)) : b;
        }

        @Override
        public String toString() {
            return HOT + Long.toString(count) + ',' + level + ',' + split;
        }
    }

    /** A 64-bit hash of an id's characters, mixed so that its low bits do not follow the ids' placement by hash. */
    static long idHash(String id) {
        long h = 0xcbf29ce484222325L;
        for (int i = 0; i < id.length(); i++) {
            h = (h ^ id.charAt(i)) * 0x100000001b3L;
        }
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        return h ^ (h >>> 33);
    }

    private static boolean isHot(String value) {
        return !value.isEmpty() && value.charAt(0) == HOT;
    }

    private ReentrantLock lock(long fp) {
        return locks[stripe(fp)];
    }

    private static int stripe(long fp) {
        return (int) ((fp * 0x9E3779B97F4A7C15L) >>> 56) & (LOCKS - 1);
    }

    static byte[] key(long fp, int bucket) {
        return ByteBuffer.allocate(12).putLong(fp).putInt(bucket).array();
    }

    private static int count(String joined) {
        int n = 1;
        for (int i = 0; i < joined.length(); i++) {
            n += joined.charAt(i) == SEPARATOR ? 1 : 0;
        }
        return n;
    }

    static String[] split(String joined) {
        return joined == null || joined.isEmpty() ? new String[0] : joined.split(String.valueOf(SEPARATOR));
    }

    /** {@code joined} without the element of length {@code length} at {@code at}, and one adjacent separator. */
    private static String without(String joined, int at, int length) {
        int end = at + length;
        return at == 0
                ? (end == joined.length() ? "" : joined.substring(end + 1))
                : joined.substring(0, at - 1) + joined.substring(end);
    }

    /** Position of {@code id} as a whole element of {@code joined}, or -1. */
    static int indexOf(String joined, String id) {
        int from = 0;
        while (true) {
            int at = joined.indexOf(id, from);
            if (at < 0) {
                return -1;
            }
            int end = at + id.length();
            boolean startOk = at == 0 || joined.charAt(at - 1) == SEPARATOR;
            boolean endOk = end == joined.length() || joined.charAt(end) == SEPARATOR;
            if (startOk && endOk) {
                return at;
            }
            from = at + 1;
        }
    }
}
