package io.simdex.server.store;

import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.ChronicleMapBuilder;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BiFunction;

/**
 * A persisted map that grows by adding Chronicle Maps instead of overflowing one: generation G
 * is the file {@code NAME-G.cm}, created for {@link Sizes#of Sizes.of(G)} entries when the
 * newest generation is full. A key lives in exactly one generation.
 *
 * <p>Reads look in the newest generation first (most keys are there once a map has grown),
 * so a lookup costs one probe per generation at worst: log2(final size / initial size).
 * Writers of a key hold its stripe lock, so two writers cannot place one key in two
 * generations while a new generation is being added.
 *
 * <p>Once a generation is older a {@link KeyFilter} of its keys is built on a background thread,
 * and a key the filter rules out is not looked up there. Without it every new key cost one
 * lookup per older generation before its insert: 27-44% of a bulk load's CPU at 5M-11M
 * documents.
 *
 * <h2>Room that removals leave</h2>
 * A new key goes to the newest generation while it has room, then to the oldest older
 * generation with room (one whose filter is built: the key's hash is added to the filter before
 * the key to the map), and only when none has room to a new generation. So a map that outgrew
 * its first generations and then removes as many keys as it adds (a collection without
 * retention at a steady size, or documents whose content changes) keeps its files: when older
 * generations took no new keys, every new key went to the newest, which filled and doubled
 * while the older ones emptied, and the files followed every key ever added, not those held.
 * Removed keys keep their filter bits, so a generation that has taken half its entries again
 * since its filter was built gets a new one, built as the first was while writers go on
 * ({@link #filter}).
 *
 * <p>The next generation's file is made ahead of need, on a background thread, once the newest
 * holds {@link #PREPARE_AT} of its entries. Creating a Chronicle Map file sizes it and zeroes
 * its hash lookups: 45-360 ms for an id map of 1.4M-11M entries on an idle 2-core machine, more
 * under load, and every writer of a new key waits for the new generation; opening the file made
 * ahead takes 2-5 ms. A first generation sized far below the rest (a store that starts small)
 * fills before its successor is made, so that one add still waits. The file is made under a
 * temporary name and renamed once closed, so a crash leaves either no file or a whole empty
 * generation, which the next open adds as the newest (empty) generation.
 */
public final class GrowingMap<K, V> implements Closeable {
    private static final int STRIPES = 1024;
    /**
     * The newest generation's fill, as a fraction of its entries, at which the next one is made:
     * late, because the file takes all its disk at once (Chronicle allocates the whole file, up
     * to twice the newest's), and a store sized for its expected documents holds them within a
     * few standard deviations of its share ({@link StoreSizing}): at 95% most shards of a store
     * filled as expected made a successor they never used. Early enough: the last 1% of a
     * generation of 12.5M entries (a 50M store's shard) takes over a second to fill at a bulk
     * load's 80K documents a second a shard, and a file of 11M entries is made in 45-360 ms.
     */
    static final double PREPARE_AT = 0.99;
    /** Generations that get a key filter: the first 64 (a map doubling from 1,000 entries holds 10^21 keys by then). */
    private static final int FILTERED = 64;
    private static final String PREPARING = ".preparing";
    private static final Logger LOG = LoggerFactory.getLogger(GrowingMap.class);
    /**
     * Makes the files of next generations, each on its own thread: with one thread a small map's
     * file queued behind eight id and fingerprint maps of 5.5M entries, and its writers waited 5 s.
     */
    private static final ExecutorService PREPARER = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "simdex-map-preparer");
        t.setDaemon(true);
        return t;
    });

    private final Path dir;
    private final String name;
    private final Sizes sizes;
    private final BuilderFactory<K, V> builders;
    private final boolean clean;
    private final CopyOnWriteArrayList<ChronicleMap<K, V>> generations = new CopyOnWriteArrayList<>();
    private final LockStripes<ReentrantLock> stripes = new LockStripes<>(STRIPES, ReentrantLock::new);
    /**
     * Entries of the newest generation, counted here because {@code ChronicleMap.longSize()}
     * walks every segment: asked per insert, it took 70% of a 50M-sized load's CPU. It only
     * decides when to add a generation, so a few entries of drift while one is being added
     * are harmless (each generation may bloat to 2x its entries).
     */
    private final AtomicLong newestEntries = new AtomicLong();
    /**
     * The file of the next generation (number {@code generations.size()}) being made ahead of
     * need, or null; guarded by {@code generations}, under which both change.
     */
    private CompletableFuture<Path> prepared;
    private volatile boolean closed;
    /** Generation g's key filter once built (never for the newest), up to {@link #FILTERED} generations. */
    private final AtomicReferenceArray<KeyFilter> filters = new AtomicReferenceArray<>(FILTERED);
    /**
     * Generation g's next filter while it is being built: a new key put into g meanwhile is added
     * to it as well as to the filter in use, since the build's walk of g may have passed its place.
     */
    private final AtomicReferenceArray<KeyFilter> rebuilding = new AtomicReferenceArray<>(FILTERED);
    /** Entries of older generation g (as {@link #newestEntries} of the newest), counted from when it became older. */
    private final AtomicLongArray olderEntries = new AtomicLongArray(FILTERED);
    /** New keys put into older generation g since its filter's build began: at half its entries the filter is built again. */
    private final AtomicLongArray addedSinceFilter = new AtomicLongArray(FILTERED);
    /** Filters being built; guarded by {@code generations}. */
    private final List<CompletableFuture<Void>> building = new ArrayList<>();
    /** The generations whose filter is being built; guarded by {@code generations}. */
    private final java.util.BitSet filtering = new java.util.BitSet(FILTERED);

    /**
     * Entries of each generation: {@code first} for generation 0, {@code second * 2^(G-1)} for
     * generation G from 1. A map sized for its expected load from the start doubles from it
     * ({@link #doubling}); a store that starts small has a small first file and a second sized
     * for the expected load, so a collection of a few documents costs a few small files, and
     * one that grows past the first pays one extra lookup per older generation, as before.
     * The sizes must stay those the files were created with: a generation judged larger than
     * it is would be filled past its entries.
     *
     * <p>{@code keys} bounds the keys the map can ever hold, where its owner knows one (a bucket
     * table's base pages: one key per page of an owned bucket): a generation that alone holds
     * that many needs no successor, so none is made ahead for it.
     */
    public record Sizes(long first, long second, long keys) {
        public Sizes {
            if (first < 1 || second < 1 || keys < 1) {
                throw new IllegalArgumentException("generation sizes " + first + ", " + second + ", at most " + keys + " keys");
            }
        }

        public Sizes(long first, long second) {
            this(first, second, Long.MAX_VALUE);
        }

        /** These sizes for a map that never holds more than {@code keys} keys. */
        public Sizes atMost(long keys) {
            return new Sizes(first, second, keys);
        }

        /** Generation G of {@code first * 2^G} entries. */
        public static Sizes doubling(long first) {
            return new Sizes(first, 2 * first);
        }

        /** Entries of generation {@code g}. */
        long of(int g) {
            return g == 0 ? first : second << Math.min(g - 1, 20);
        }
    }

    /** Makes the builder for a generation of {@code entries} entries. */
    public interface BuilderFactory<K, V> {
        ChronicleMapBuilder<K, V> builder(long entries);
    }

    public GrowingMap(Path dir, String name, long initialEntries, BuilderFactory<K, V> builders, boolean clean) {
        this(dir, name, Sizes.doubling(initialEntries), builders, clean, false);
    }

    public GrowingMap(Path dir, String name, Sizes sizes, BuilderFactory<K, V> builders, boolean clean) {
        this(dir, name, sizes, builders, clean, false);
    }

    /**
     * A map whose first file is created by its first write, not by its opening: for a map many
     * collections never use (content hashes, short texts), whose file would otherwise be
     * allocated and its hash lookups zeroed for nothing (2 GB and seconds at 50M documents).
     * Until then reads find nothing and removes remove nothing.
     */
    public static <K, V> GrowingMap<K, V> onFirstWrite(Path dir, String name, long initialEntries, BuilderFactory<K, V> builders,
            boolean clean) {
        return onFirstWrite(dir, name, Sizes.doubling(initialEntries), builders, clean);
    }

    public static <K, V> GrowingMap<K, V> onFirstWrite(Path dir, String name, Sizes sizes, BuilderFactory<K, V> builders, boolean clean) {
        return new GrowingMap<>(dir, name, sizes, builders, clean, true);
    }

    private GrowingMap(Path dir, String name, Sizes sizes, BuilderFactory<K, V> builders, boolean clean, boolean onFirstWrite) {
        this.dir = dir;
        this.name = name;
        this.sizes = sizes;
        this.builders = builders;
        this.clean = clean;
        for (int g = 0; Files.exists(file(g)); g++) {
            generations.add(open(g));
        }
        deleteIfExists(preparing(generations.size())); // a preparation the last run did not finish
        synchronized (generations) {
            for (int g = 0; g < generations.size() - 1; g++) {
                if (g < FILTERED) {
                    olderEntries.set(g, generations.get(g).longSize());
                }
                filter(g);
            }
        }
        if (generations.isEmpty() && !onFirstWrite) {
            generations.add(create(0, file(0)));
        }
        newestEntries.set(newestSize());
    }

    public V get(K key) {
        int n = generations.size();
        int hash = n > 1 ? hash(key) : 0;
        for (int g = n - 1; g >= 0; g--) {
            if (g < n - 1 && ruledOut(g, hash)) {
                continue;
            }
            V v = generations.get(g).get(key);
            if (v != null) {
                return v;
            }
        }
        return null;
    }

    /** Sets {@code key} to {@code value}; returns the previous value. */
    public V put(K key, V value) {
        ReentrantLock lock = stripe(key);
        lock.lock();
        try {
            // One snapshot of the generations: one added meanwhile is empty, so a key found in
            // none of these is in no generation, and "newest" may only be one behind.
            int n = generations.size();
            if (n == 0) {
                return putNew(key, value);
            }
            int older = olderHolder(key, n);
            if (older >= 0) {
                return generations.get(older).put(key, value);
            }
            ChronicleMap<K, V> newest = generations.get(n - 1);
            if (hasRoom(n)) {
                try {
                    // One lookup: the key is in this generation or in none.
                    V previous = newest.put(key, value);
                    if (previous == null) {
                        added(n, newestEntries.incrementAndGet());
                    }
                    return previous;
                } catch (IllegalStateException e) {
                    spent(n, newest, key, e);
                }
            }
            return newest.containsKey(key) ? newest.put(key, value) : putNew(key, value);
        } finally {
            lock.unlock();
        }
    }

    public V remove(K key) {
        ReentrantLock lock = stripe(key);
        lock.lock();
        try {
            int n = generations.size();
            if (n == 0) {
                return null;
            }
            int older = olderHolder(key, n);
            if (older >= 0) {
                V removed = generations.get(older).remove(key);
                if (removed != null && older < FILTERED) {
                    olderEntries.decrementAndGet(older);
                }
                return removed;
            }
            V removed = generations.get(n - 1).remove(key);
            if (removed != null) {
                newestEntries.decrementAndGet();
            }
            return removed;
        } finally {
            lock.unlock();
        }
    }

    /** Atomically replaces the value (null: absent) by {@code f(key, value)}; null removes. Returns the new value. */
    public V compute(K key, BiFunction<? super K, ? super V, ? extends V> f) {
        ReentrantLock lock = stripe(key);
        lock.lock();
        try {
            int n = generations.size();
            int older = olderHolder(key, n);
            if (older >= 0) {
                V after = generations.get(older).compute(key, f);
                if (after == null && older < FILTERED) {
                    olderEntries.decrementAndGet(older);
                }
                return after;
            }
            ChronicleMap<K, V> newest = n == 0 ? null : generations.get(n - 1);
            if (newest != null && (hasRoom(n) || newest.containsKey(key))) {
                boolean[] absent = {false};
                try {
                    V after = newest.compute(key, (k, v) -> {
                        absent[0] = v == null;
                        return f.apply(k, v);
                    });
                    if (absent[0] != (after == null)) {
                        added(n, newestEntries.addAndGet(absent[0] ? 1 : -1));
                    }
                    return after;
                } catch (IllegalStateException e) {
                    spent(n, newest, key, e);
                }
            }
            V created = f.apply(key, null);
            if (created != null) {
                putNew(key, created);
            }
            return created;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Calls {@code action} with every entry (copies). No lock is held while it runs: Chronicle
     * Map's iterator copies one segment at a time, so a slow consumer (a stream waiting for its
     * reader) does not stall writers. Entries written meanwhile may or may not be seen.
     */
    public void forEach(java.util.function.BiConsumer<? super K, ? super V> action) {
        for (ChronicleMap<K, V> m : generations) {
            for (Map.Entry<K, V> e : m.entrySet()) {
                action.accept(e.getKey(), e.getValue());
            }
        }
    }

    /** Calls {@code action} with every value (a copy). */
    public void forEachValue(java.util.function.Consumer<? super V> action) {
        for (ChronicleMap<K, V> m : generations) {
            m.values().forEach(action);
        }
    }

    /** Removes every entry {@code drop} accepts; returns how many. */
    public long removeIf(java.util.function.BiPredicate<? super K, ? super V> drop) {
        long removed = 0;
        for (ChronicleMap<K, V> m : generations) {
            long before = m.longSize();
            m.entrySet().removeIf(e -> drop.test(e.getKey(), e.getValue()));
            removed += before - m.longSize();
        }
        for (int g = 0; g < Math.min(generations.size() - 1, FILTERED); g++) {
            olderEntries.set(g, generations.get(g).longSize());
        }
        newestEntries.set(newestSize());
        return removed;
    }

    public long size() {
        long n = 0;
        for (ChronicleMap<K, V> m : generations) {
            n += m.longSize();
        }
        return n;
    }

    public long offHeapBytes() {
        long n = 0;
        for (ChronicleMap<K, V> m : generations) {
            n += m.offHeapMemoryUsed();
        }
        return n;
    }

    int generationCount() {
        return generations.size();
    }

    /** Segments of generation {@code g}: the units a reader may stop between and go on from ({@link #forEachInSegment}). */
    int segments(int g) {
        return generations.get(g).segments();
    }

    /**
     * Calls {@code action} with every entry (copies) of segment {@code s} of generation
     * {@code g}, under that segment's read lock: an entry not changed meanwhile is seen by
     * exactly one of a reader's segment visits, which other entries' writes do not move.
     */
    void forEachInSegment(int g, int s, java.util.function.BiConsumer<? super K, ? super V> action) {
        try (net.openhft.chronicle.map.MapSegmentContext<K, V, ?> c = generations.get(g).segmentContext(s)) {
            c.forEachSegmentEntry(e -> action.accept(e.key().get(), e.value().get()));
        }
    }

    /** Generation {@code g}, 0 the oldest: for reading or writing a value in place (BucketPages). */
    ChronicleMap<K, V> generation(int g) {
        return generations.get(g);
    }

    /** Closes every generation, after the next one's file, if being made, is made (it stays, empty). */
    @Override
    public void close() {
        CompletableFuture<Path> making;
        synchronized (generations) {
            closed = true;
            making = prepared;
            prepared = null;
        }
        if (making != null) {
            try {
                making.join();
            } catch (CompletionException e) {
                LOG.warn("{}: making the next generation ahead failed", dir, e.getCause());
            }
        }
        builds().forEach(b -> b.exceptionally(t -> null).join()); // each stops at its next check of closed
        generations.forEach(ChronicleMap::close);
        DiskSpace.roomAgain(this); // a file it lacked room for is no longer needed
    }

    /** Of the first {@code n} generations, the one before the last that holds {@code key}, or -1. */
    private int olderHolder(K key, int n) {
        int hash = n > 1 ? hash(key) : 0;
        for (int g = n - 2; g >= 0; g--) {
            if (!ruledOut(g, hash) && generations.get(g).containsKey(key)) {
                return g;
            }
        }
        return -1;
    }

    /** Whether generation {@code n - 1}, if still the newest, holds fewer entries than it was made for. */
    private boolean hasRoom(int n) {
        return newestEntries.get() < capacity(n - 1);
    }

    /**
     * Handles Chronicle Map refusing a new {@code key} in the newest of {@code n} generations:
     * when its segment tiers are spent (keys far above the average size fill a generation by
     * bytes before it holds its entries), that generation counts as full, so the caller puts
     * the key into a new one; any other failure, or a key the generation holds, is rethrown.
     */
    private void spent(int n, ChronicleMap<K, V> newest, K key, IllegalStateException e) {
        String message = e.getMessage();
        if (message == null || !message.contains("extra segment tier") || newest.containsKey(key)) {
            throw e;
        }
        synchronized (generations) {
            if (generations.size() == n) {
                newestEntries.accumulateAndGet(capacity(n - 1), Math::max);
            }
        }
    }

    /**
     * Puts a key no generation holds (the caller holds its stripe) into the newest generation, or,
     * when that is full, into the oldest older one with room.
     */
    private V putNew(K key, V value) {
        ChronicleMap<K, V> into;
        do {
            int n = generations.size();
            if (n > 1 && !hasRoom(n)) {
                for (int g = 0; g < Math.min(n - 1, FILTERED); g++) {
                    if (putOlder(g, n, key, value)) {
                        return null;
                    }
                }
            }
            into = writable();
        } while (into == null);
        V previous = into.put(key, value);
        added(generations.size(), newestEntries.incrementAndGet());
        return previous;
    }

    /**
     * Puts new {@code key} into older generation g of {@code n} if g has room and a filter, and
     * says whether it did. The key's hash goes into the filter (and the one being built) before
     * the key goes into the map, so no reader can find the map holding a key its filter rules
     * out. The next filter is read before the one in use: a writer that finds none being built
     * either finds the new one already in use or holds its stripe while the build's walk waits
     * for it ({@link #filter}).
     */
    private boolean putOlder(int g, int n, K key, V value) {
        if (olderEntries.get(g) >= capacity(g)) {
            return false;
        }
        KeyFilter next = rebuilding.get(g);
        KeyFilter inUse = filters.get(g);
        if (inUse == null) {
            return false; // not built yet: a key added now could be missed by the build
        }
        int hash = hash(key);
        inUse.add(hash);
        if (next != null) {
            next.add(hash);
        }
        try {
            generations.get(g).put(key, value);
        } catch (IllegalStateException e) {
            spentOlder(g, key, e);
            return false;
        }
        long entries = olderEntries.incrementAndGet(g);
        if (addedSinceFilter.incrementAndGet(g) >= capacity(g) / 2) {
            synchronized (generations) {
                filter(g); // none if one is being built: its start sets the count back to 0
            }
        }
        if (entries == (long) (capacity(g) * PREPARE_AT) && newestEntries.get() >= (long) (capacity(n - 1) * PREPARE_AT)) {
            prepareAhead(n); // the room this generation had is nearly gone, and the newest is nearly full
        }
        return true;
    }

    /** As {@link #spent}, for older generation g: it counts as full, and the key goes elsewhere. */
    private void spentOlder(int g, K key, IllegalStateException e) {
        String message = e.getMessage();
        if (message == null || !message.contains("extra segment tier") || generations.get(g).containsKey(key)) {
            throw e;
        }
        olderEntries.accumulateAndGet(g, capacity(g), Math::max);
    }

    /** Entries older generations with a filter (of the first {@code n}) have room for: where new keys go before a new generation. */
    private long olderRoom(int n) {
        long room = 0;
        for (int g = 0; g < Math.min(n - 1, FILTERED); g++) {
            if (filters.get(g) != null) {
                room += Math.max(0, capacity(g) - olderEntries.get(g));
            }
        }
        return room;
    }

    /**
     * The newest generation, after adding one if it holds its configured entries; or null when
     * an older generation has room again (a key removed from it after the caller looked), for
     * the caller to look again rather than add a generation for want of one entry.
     */
    private ChronicleMap<K, V> writable() {
        if (!generations.isEmpty() && hasRoom(generations.size())) {
            return newest();
        }
        synchronized (generations) {
            if (generations.isEmpty() || !hasRoom(generations.size())) {
                int g = generations.size();
                if (olderRoom(g) > 0) {
                    return null;
                }
                long start = System.nanoTime();
                boolean ahead = prepared != null;
                generations.add(ahead ? openPrepared(g) : create(g, this));
                if (g > 0 && g - 1 < FILTERED) {
                    olderEntries.set(g - 1, newestEntries.get());
                }
                newestEntries.set(0);
                if (g > 0) { // growth; a first generation is every new collection's first write
                    filter(g - 1);
                    LOG.info("{}: generation {} of {} entries added in {} ms{}", dir, file(g).getFileName(), capacity(g),
                            (System.nanoTime() - start) / 1_000_000, ahead ? " (its file made ahead)" : "");
                }
            }
            return newest();
        }
    }

    /**
     * After a new key made the newest of {@code n} generations hold {@code entries}: starts
     * making the next generation's file when that crosses {@link #PREPARE_AT} of its entries
     * (each count is returned to one writer, so one of them starts it), unless that generation
     * can hold every key the map ever will ({@link Sizes#keys}).
     */
    private void added(int n, long entries) {
        if (n >= 1 && entries == (long) (capacity(n - 1) * PREPARE_AT)) {
            prepareAhead(n);
        }
    }

    /**
     * Starts making generation n's file, unless it is being made, or generation n - 1 can hold
     * every key the map ever will, or older generations have room for as many new keys as the
     * newest's last {@code 1 - PREPARE_AT} (their room is used first, and a file made ahead
     * takes its disk at once).
     */
    private void prepareAhead(int n) {
        long newest = capacity(n - 1);
        if (newest >= sizes.keys() || olderRoom(n) > newest - (long) (newest * PREPARE_AT)) {
            return;
        }
        synchronized (generations) {
            if (closed || generations.size() != n || prepared != null) {
                return;
            }
            prepared = CompletableFuture.supplyAsync(() -> prepare(n), PREPARER);
        }
    }

    /**
     * Makes generation g's file under a temporary name, closes it, and gives it its name. A
     * failure for lack of space is recorded by {@link DiskSpace}, with a retry; a success ends
     * this map's shortage.
     */
    private Path prepare(int g) {
        Path tmp = preparing(g);
        long start = System.nanoTime();
        try {
            Files.deleteIfExists(tmp);
            MapFiles.beforeMake.check(tmp);
            // Out of Chronicle Map's exit hook, which refuses new maps once the JVM is exiting (MapFiles#leaveExitHook).
            builder(g).skipCloseOnExitHook(true).createPersistedTo(tmp.toFile()).close();
            Files.move(tmp, file(g), StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException | RuntimeException e) {
            MapFiles.deleteQuietly(tmp, e);
            IOException full = DiskSpace.noSpace(e);
            if (full != null) {
                DiskSpace.shortOf(this, file(g), full, () -> retryPrepare(g));
            }
            throw e instanceof IOException io ? new UncheckedIOException("cannot make " + file(g), io) : (RuntimeException) e;
        }
        DiskSpace.roomAgain(this);
        LOG.debug("{}: made {} ahead of need in {} ms", dir, file(g).getFileName(), (System.nanoTime() - start) / 1_000_000);
        return file(g);
    }

    /**
     * Generation g from the file made ahead (waiting for it if it is still being made); made in
     * line instead if making it failed. The caller holds {@code generations}.
     */
    private ChronicleMap<K, V> openPrepared(int g) {
        CompletableFuture<Path> made = prepared;
        prepared = null;
        try {
            return MapFiles.open(builder(g), made.join(), true); // closed by this process: no recovery needed
        } catch (CompletionException | UncheckedIOException | IllegalStateException e) {
            // IllegalStateException: Chronicle Map registers a map opened from an existing file in
            // its exit hook whatever the builder says, and refuses that while the JVM is exiting.
            if (DiskSpace.noSpace(e) == null) {
                LOG.warn("{}: the file made ahead for generation {} cannot be used; making it now", dir, g, e);
            }
            deleteIfExists(file(g));
            return create(g, this);
        }
    }

    /**
     * Generation g, made now: its file is new, or one made ahead (opened). A failure for lack of
     * space is recorded by {@link DiskSpace} for {@code owner} and thrown as a
     * {@link NoRoomException}; the retry makes the file ahead ({@code owner} this map) or,
     * for a map that failed to open ({@code owner} its file), sees whether it would fit
     * ({@link #probe}). A success ends {@code owner}'s shortage.
     */
    private ChronicleMap<K, V> create(int g, Object owner) {
        ChronicleMap<K, V> made;
        try {
            made = open(g);
        } catch (RuntimeException e) {
            IOException full = DiskSpace.noSpace(e);
            if (full == null) {
                throw e;
            }
            throw DiskSpace.shortOf(owner, file(g), full, owner == this ? () -> retryPrepare(g) : () -> probe(g, owner));
        }
        DiskSpace.roomAgain(owner);
        return made;
    }

    /**
     * Starts making generation g's file ahead again, after it failed for lack of space (a
     * {@link DiskSpace} retry). On a thread of its own: a writer may hold {@code generations}
     * while it opens a file, and the caller is a request's thread.
     */
    private void retryPrepare(int g) {
        CompletableFuture.runAsync(() -> {
            synchronized (generations) {
                if (closed || generations.size() != g) {
                    DiskSpace.roomAgain(this); // no longer needed
                    return;
                }
                if (prepared == null || prepared.isCompletedExceptionally()) {
                    prepared = CompletableFuture.supplyAsync(() -> prepare(g), PREPARER);
                }
            }
        }, PREPARER);
    }

    /**
     * Whether there is room now for generation g's file, whose making failed when the map was
     * opened (a {@link DiskSpace} retry): makes a file of its size under another name and
     * deletes it. The map itself is gone; the store's next opening makes the file.
     */
    private void probe(int g, Object owner) {
        CompletableFuture.runAsync(() -> {
            Path probe = dir.resolve(file(g).getFileName() + ".probe");
            try {
                Files.deleteIfExists(probe);
                MapFiles.beforeMake.check(probe);
                builder(g).skipCloseOnExitHook(true).createPersistedTo(probe.toFile()).close();
                Files.delete(probe);
                DiskSpace.roomAgain(owner);
            } catch (IOException | RuntimeException e) {
                MapFiles.deleteQuietly(probe, e);
                IOException full = DiskSpace.noSpace(e);
                if (full != null) {
                    DiskSpace.shortOf(owner, file(g), full, () -> probe(g, owner));
                } else {
                    LOG.warn("{}: cannot make {} to see whether the disk has room for it", dir, probe.getFileName(), e);
                    DiskSpace.roomAgain(owner); // not for lack of space: nothing to wait for
                }
            }
        }, PREPARER);
    }

    /** Entries of the newest generation; 0 before a first-write map has one. */
    private long newestSize() {
        return generations.isEmpty() ? 0 : newest().longSize();
    }

    private ChronicleMap<K, V> newest() {
        return generations.get(generations.size() - 1);
    }

    private long capacity(int g) {
        return sizes.of(g);
    }

    private ChronicleMap<K, V> open(int g) {
        return MapFiles.open(builder(g), file(g), clean);
    }

    private ChronicleMapBuilder<K, V> builder(int g) {
        return builders.builder(capacity(g)).name(name + "-" + g);
    }

    private Path file(int g) {
        return dir.resolve(name + "-" + g + ".cm");
    }

    private Path preparing(int g) {
        return dir.resolve(name + "-" + g + ".cm" + PREPARING);
    }

    private static void deleteIfExists(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private ReentrantLock stripe(K key) {
        return stripes.of(hash(key) * 0x9E3779B9 >>> 22);
    }

    /** A key's hash by content, arrays included (their hashCode is identity): for stripes and filters. */
    private static int hash(Object key) {
        return key instanceof byte[] bytes ? java.util.Arrays.hashCode(bytes) : key.hashCode();
    }

    /** Whether generation g's filter, if built, says it does not hold a key of this hash. */
    private boolean ruledOut(int g, int hash) {
        KeyFilter f = g < FILTERED ? filters.get(g) : null;
        return f != null && !f.mightContain(hash);
    }

    /**
     * Builds older generation g's key filter in the background, or builds it again (a build
     * already under way is left to finish). The filter is first made the one new keys of g are
     * also added to ({@link #rebuilding}); then every stripe is taken and released: a writer that
     * saw g as the newest, or saw no filter being built, holds its key's stripe while it may
     * still add that key to g, and every later writer sees a newer generation or adds to the new
     * filter. Only then does the walk over g's keys begin. The caller holds {@code generations}.
     */
    private void filter(int g) {
        if (g >= FILTERED || closed || filtering.get(g)) {
            return;
        }
        filtering.set(g);
        ChronicleMap<K, V> m = generations.get(g);
        CompletableFuture<Void> b = CompletableFuture.runAsync(() -> {
            long start = System.nanoTime();
            KeyFilter f = new KeyFilter(Math.max(capacity(g), m.longSize()));
            addedSinceFilter.set(g, 0);
            rebuilding.set(g, f);
            try {
                for (int i = 0; i < STRIPES; i++) {
                    // A stripe never used is made, so that a writer that comes to it locks it after this.
                    ReentrantLock stripe = stripes.of(i);
                    stripe.lock();
                    stripe.unlock();
                }
                long[] seen = {0};
                m.forEachEntry(e -> {
                    if ((++seen[0] & 0xfff) == 0 && closed) {
                        throw new CancellationException("closed");
                    }
                    f.add(hash(e.key().get()));
                });
                KeyFilter before = filters.getAndSet(g, f);
                if (LOG.isDebugEnabled()) { // fill() reads the whole filter
                    LOG.debug("{}: key filter of {} ({} keys, {} KB{}) built in {} ms", dir, file(g).getFileName(), seen[0], f.bytes() / 1024,
                            before == null ? "" : String.format(", the one before %.2f full", before.fill()), (System.nanoTime() - start) / 1_000_000);
                }
            } finally {
                rebuilding.set(g, null);
            }
        }, PREPARER);
        building.add(b);
        b.whenComplete((v, t) -> {
            synchronized (generations) {
                building.remove(b);
                filtering.clear(g);
                if (t == null && addedSinceFilter.get(g) >= capacity(g) / 2) {
                    // A build that took long while keys came and went carries their bits: build
                    // again now rather than at the next new key, which may be long in coming.
                    filter(g);
                }
            }
            if (t != null && !closed) {
                LOG.warn("{}: building the key filter of {} failed; it is looked up for every key", dir, file(g).getFileName(), t);
            }
        });
    }

    /** Waits until every older generation's key filter is built, builds started by builds included (tests). */
    void awaitFilters() {
        for (List<CompletableFuture<Void>> pending = builds(); !pending.isEmpty(); pending = builds()) {
            pending.forEach(CompletableFuture::join);
        }
    }

    private List<CompletableFuture<Void>> builds() {
        synchronized (generations) {
            return List.copyOf(building);
        }
    }

    /** Whether the next generation's file is being made or waits, made, for its first key (tests). */
    boolean nextMadeAhead() {
        synchronized (generations) {
            return prepared != null;
        }
    }

    /** Older generation g's key filter, or null (tests). */
    KeyFilter filterOf(int g) {
        return filters.get(g);
    }

    /** Whether older generation g has a key filter (tests). */
    boolean filtered(int g) {
        return filters.get(g) != null;
    }
}
