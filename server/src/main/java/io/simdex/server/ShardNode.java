package io.simdex.server;

import io.simdex.core.Partitions;
import io.simdex.core.io.FileTrees;
import io.simdex.fingerprint.BlockTables;
import io.simdex.server.store.BucketTable;
import io.simdex.server.store.CollectionStore;
import io.simdex.server.store.DocMaps;
import io.simdex.server.store.DocMaps.IdList;
import io.simdex.server.store.MapFiles;
import io.simdex.server.store.MatchBuffer;
import io.simdex.server.store.StoreSizing;
import io.simdex.server.store.UrlSeenSet;
import io.simdex.server.wal.WriteAheadLog;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * One shard: each collection's stores under {@code dataDir/COLLECTION/g-GENERATION/}, opened on
 * first use (see {@link CollectionGenerations}).
 * The operations are the shard protocol of {@code shard.proto}; the router calls them directly
 * in one JVM and through {@link ShardService} (data plane) and {@link ShardControlService}
 * (moves, epoch, status) across processes. Every write is idempotent.
 * Callers (the router, or the gRPC service) have validated their arguments.
 *
 * <p>Partitions move between nodes by {@link PartitionPuller} (into this node),
 * {@link PartitionExport} (out of it) and {@link #dropPartitions}; while a pull runs, deletes
 * and rebinds here take their partition's lock and leave tombstones ({@link ActivePulls}).
 *
 * <p>Each write, once applied, is told to the node's {@link MutationLog}: nothing with
 * {@link Durability#PROCESS}, a write-ahead log record with FSYNC ({@link ShardLog}). Callers
 * acknowledge writes after {@link #awaitDurable}.
 */
public final class ShardNode implements Closeable {
    private final Path dataDir;
    private final Function<String, StoreSizing> sizing;
    private final ConcurrentHashMap<String, CollectionGenerations> collections = new ConcurrentHashMap<>();
    private final ThreadLocal<Matches> matches = ThreadLocal.withInitial(Matches::new);
    private final BucketLocks locks;
    private final IntentLog intentLog;
    private final ConcurrentHashMap<String, UrlSeenSet> urlJobs = new ConcurrentHashMap<>();
    private final ActivePulls pulls = new ActivePulls();
    private final MutationLog log;
    /** This process's hold on {@code dataDir}; null for a node opened by one that holds it (a log's replay). */
    private final DataDirLock dirLock;

    /** A node with {@link Durability#PROCESS}: see {@link #ShardNode(Path, Function, Durability)}. */
    public ShardNode(Path dataDir, Function<String, StoreSizing> sizing) {
        this(dataDir, sizing, Durability.PROCESS);
    }

    /**
     * Takes {@code dataDir} for this process ({@link DataDirInUseException}, naming the holder,
     * if another process holds it: {@link DataDirLock}), replays the write-ahead log a node left
     * there if it stopped uncleanly (with either setting), then, with FSYNC, logs every change
     * (see {@link ShardLog}).
     *
     * @param sizing how to size a collection's maps when this shard first creates them
     */
    public ShardNode(Path dataDir, Function<String, StoreSizing> sizing, Durability durability) {
        this(dataDir, sizing, durability, WriteAheadLog.FILES, WriteAheadLog.SEGMENT_BYTES);
    }

    /** As the public constructor, with the log's segment files from {@code channels}, checkpointing at {@code segmentBytes}. */
    ShardNode(Path dataDir, Function<String, StoreSizing> sizing, Durability durability, WriteAheadLog.Channels channels,
              long segmentBytes) {
        this(dataDir, sizing, Held.open(dataDir, () -> ShardLog.open(dataDir, sizing, durability, channels, segmentBytes)));
    }

    /** A node on {@code dataDir}, which the caller holds, changes told to {@code log}. */
    ShardNode(Path dataDir, Function<String, StoreSizing> sizing, MutationLog log) {
        this(dataDir, sizing, new Held(null, log));
    }

    private ShardNode(Path dataDir, Function<String, StoreSizing> sizing, Held held) {
        this.dataDir = dataDir;
        this.sizing = sizing;
        this.log = held.log;
        this.dirLock = held.lock;
        try {
            MapFiles.loadChronicle(dataDir);
            // Intents are forced before the first write they cover exactly when writes are (FSYNC logs, PROCESS does not).
            this.intentLog = IntentLog.open(dataDir, log != MutationLog.NONE);
        } catch (RuntimeException e) {
            held.close(); // so that this process can open the directory again
            throw e;
        }
        this.locks = new BucketLocks(intentLog);
    }

    public Path dataDir() {
        return dataDir;
    }

    CollectionGenerations collection(String name) {
        CollectionGenerations open = collections.get(name); // every probe asks: no capturing lambda for an open one
        if (open != null) {
            return open;
        }
        return collections.computeIfAbsent(name, c -> new CollectionGenerations(dataDir.resolve(c), sizing.apply(c)));
    }

    /**
     * Opens every collection stored on disk, recovering the maps a crash left open. A process
     * calls this before it takes calls: otherwise the first call to each collection after a
     * restart waits for that recovery (seconds for millions of documents), and a router's write
     * to a replica that has just come back would wait with it.
     */
    public void openStored() {
        collectionNames().forEach(this::collection);
    }

    /** Every collection on disk or open, sorted: those not used since the process started too. */
    List<String> collectionNames() {
        // Collection names cannot hold a dot (Names), so "urls.jobs" is never one.
        return names(dataDir, collections.keySet(), name -> !name.contains("."));
    }

    /** Every URL job on disk or open, sorted. */
    List<String> urlJobNames() {
        return names(dataDir.resolve("urls.jobs"), urlJobs.keySet(), name -> true);
    }

    private static List<String> names(Path dir, Set<String> open, Predicate<String> keep) {
        TreeSet<String> out = new TreeSet<>(open);
        if (Files.isDirectory(dir)) {
            try (Stream<Path> children = Files.list(dir)) {
                children.filter(Files::isDirectory).map(p -> p.getFileName().toString()).filter(keep).forEach(out::add);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return new ArrayList<>(out);
    }

    ActivePulls pulls() {
        return pulls;
    }

    /** Stored fingerprints near each of {@code fps}, with the generation each was found in. */
    public record Found(long[] fingerprints, long[] generations) {
        static final Found NONE = new Found(new long[0], new long[0]);
    }

    /** Reusable buffers of one probe's matches: fingerprints, and the generation of each. */
    public record Matches(MatchBuffer fps, MatchBuffer generations) {
        public Matches() {
            this(new MatchBuffer(), new MatchBuffer());
        }

        public void clear() {
            fps.clear();
            generations.clear();
        }
    }

    /**
     * For each fingerprint, the stored fingerprints of its bucket in {@code table} within
     * {@code maxDistance}, searched in every existing generation of {@code generations}.
     */
    public Found[] probe(String collection, long[] generations, int table, long[] fps, int maxDistance) {
        Matches m = matches.get();
        Found[] out = new Found[fps.length];
        Stores stores = stores(collection, generations);
        for (int i = 0; i < fps.length; i++) {
            out[i] = found(stores, table, fps[i], maxDistance, m);
        }
        return out;
    }

    /** One bucket's matches, probed with {@code m} as scratch. */
    private Found found(Stores stores, int table, long fp, int maxDistance, Matches m) {
        m.clear();
        probe(stores, table, fp, maxDistance, m);
        return m.fps().size() == 0 ? Found.NONE : new Found(m.fps().toArray(), m.generations().toArray());
    }

    /**
     * A ProbeMany's parts: for part i, {@link #probe(String, long[], int, long[], int)} of
     * {@code fps[i]} in {@code tables[i]} within {@code maxDistances[i]}. A call of more buckets
     * than one fingerprint's within distance 3 (4) brings them in {@link #PREFETCH_WINDOW} at a
     * time before probing them ({@link BucketTable#prefetch}), across parts: a router sends a
     * node a part per table (and per neighbour bucket beyond distance 3), so a text probe's
     * buckets or a batch's are spread over parts. A one-node cluster at 10M stored answered
     * batched Query at 1.28-1.36x the fingerprints a second with windows of 68 and 1.19x with
     * windows of 8 (the node restarted with and without, alternately, for each of two rounds of
     * {@code run --batch 1000 --concurrency 2}), and batched Dedup as fast; in a store grown to
     * ten times its layout (chains of seven pages) Query was even. The 4 buckets of a unary
     * query within 3 probe as before: the embedded router's unary queries were slower with it
     * (LocalQuery).
     */
    public Found[][] probe(String collection, long[] generations, int[] tables, long[][] fps, int[] maxDistances) {
        Stores stores = stores(collection, generations);
        Matches m = matches.get();
        int buckets = 0;
        for (long[] part : fps) {
            buckets += part.length;
        }
        PrefetchWindow window = buckets > BlockTables.TABLES ? prefetchWindows.get() : null;
        // Buckets are probed in order, part by part; (part, next) is where the next window starts.
        int probed = 0;
        int part = 0;
        int next = 0;
        Found[][] out = new Found[tables.length][];
        for (int i = 0; i < tables.length; i++) {
            out[i] = new Found[fps[i].length];
            for (int j = 0; j < fps[i].length; j++) {
                if (window != null && probed++ % PREFETCH_WINDOW == 0) {
                    window.count = 0;
                    while (part < tables.length && window.count < PREFETCH_WINDOW) {
                        if (next < fps[part].length) {
                            window.tables[window.count] = tables[part];
                            window.fps[window.count++] = fps[part][next++];
                        } else {
                            part++;
                            next = 0;
                        }
                    }
                    m.fps().keep(prefetch(stores, window.tables, window.fps, window.count));
                }
                out[i][j] = found(stores, tables[i], fps[i][j], maxDistances[i], m);
            }
        }
        return out;
    }

    /** Buckets a call of several probes brings in at a time: a text probe's beyond distance 3 (4 tables x 17). */
    static final int PREFETCH_WINDOW = BlockTables.TABLES * (1 + BlockTables.BLOCK_BITS);

    private final ThreadLocal<PrefetchWindow> prefetchWindows = ThreadLocal.withInitial(PrefetchWindow::new);

    /** The buckets of one {@link #PREFETCH_WINDOW}, reused by the thread. */
    private static final class PrefetchWindow {
        final int[] tables = new int[PREFETCH_WINDOW];
        final long[] fps = new long[PREFETCH_WINDOW];
        int count;
    }

    /**
     * Appends to {@code out} the stored fingerprints of fp's bucket in {@code table} within
     * {@code maxDistance}, searched in every existing generation of {@code generations}, with the
     * generation each was found in. Queries find their stores once ({@link #stores}) and probe
     * many buckets in them.
     */
    public void probe(String collection, long[] generations, int table, long fp, int maxDistance, Matches out) {
        probe(stores(collection, generations), table, fp, maxDistance, out);
    }

    /**
     * A collection's bucket tables of those {@code generations} that exist, found once for the
     * many bucket probes of a query (up to 68 a fingerprint beyond distance 3), which otherwise looked
     * up the collection and each generation's store per bucket. A generation created after this
     * is not searched, as a probe that started before it would not have found it.
     */
    public Stores stores(String collection, long[] generations) {
        CollectionGenerations c = collection(collection);
        CollectionStore[] stores = new CollectionStore[generations.length];
        BucketTable[] tables = new BucketTable[generations.length];
        long[] found = new long[generations.length];
        int n = 0;
        for (long g : generations) {
            CollectionStore store = c.existing(g);
            if (store != null) {
                stores[n] = store;
                tables[n] = store.buckets();
                found[n++] = g;
            }
        }
        return new Stores(Arrays.copyOf(stores, n), Arrays.copyOf(tables, n), Arrays.copyOf(found, n));
    }

    /** What {@link #stores} found: the stores, their bucket tables and the generation of each. */
    public static final class Stores {
        private final CollectionStore[] stores;
        private final BucketTable[] tables;
        private final long[] generations;

        private Stores(CollectionStore[] stores, BucketTable[] tables, long[] generations) {
            this.stores = stores;
            this.tables = tables;
            this.generations = generations;
        }

        /** The store of {@code generation}, null if it was not found. */
        private CollectionStore of(long generation) {
            for (int i = 0; i < generations.length; i++) {
                if (generations[i] == generation) {
                    return stores[i];
                }
            }
            return null;
        }
    }

    /**
     * {@link BucketTable#prefetch} of buckets (tables[i], block(fps[i])), i below {@code count},
     * in every store: before probing them, so that their misses overlap. Returns a sum for the
     * caller to keep.
     */
    public int prefetch(Stores stores, int[] tables, long[] fps, int count) {
        int sum = 0;
        for (BucketTable t : stores.tables) {
            sum += t.prefetch(tables, fps, count);
        }
        return sum;
    }

    /**
     * As {@link #probe(String, long[], int, long, int, Matches)}, in the stores found beforehand:
     * allocates nothing once the buffers have grown.
     */
    public void probe(Stores stores, int table, long fp, int maxDistance, Matches out) {
        for (int i = 0; i < stores.tables.length; i++) {
            stores.tables[i].probe(table, fp, maxDistance, out.fps());
            while (out.generations().size() < out.fps().size()) {
                out.generations().add(stores.generations[i]);
            }
        }
    }

    public int bucketAdd(String collection, long generation, int table, long[] fps) {
        return bucketAdd(collection, generation, table, fps, true);
    }

    /**
     * Adds each fingerprint to its bucket; {@code checkPresence} false: the caller knows they are
     * new (see BucketTable.add), and consecutive fingerprints of one bucket are appended as a run
     * (BucketTable.addAll), which a caller that orders them by block (a bulk load) profits from.
     */
    public int bucketAdd(String collection, long generation, int table, long[] fps, boolean checkPresence) {
        int changed = addToBuckets(collection, generation, table, fps, checkPresence);
        log.bucketAdd(collection, generation, table, fps);
        return changed;
    }

    private int addToBuckets(String collection, long generation, int table, long[] fps, boolean checkPresence) {
        BucketTable buckets = collection(collection).writable(generation).buckets();
        if (pulls.watching()) {
            // A mirroring pull may be about to remove one of these: it must see the add (PartitionMirror).
            int changed = 0;
            for (long fp : fps) {
                try (ActivePulls.Stripe s = pulls.adding(Partitions.ofBucket(table, BlockTables.block(fp, table)),
                        new PullTombstones.BucketEntry(collection, generation, table, fp))) {
                    changed += buckets.add(table, fp, true) ? 1 : 0;
                }
            }
            return changed;
        }
        if (!checkPresence) {
            for (int from = 0, to; from < fps.length; from = to) {
                int block = BlockTables.block(fps[from], table);
                for (to = from + 1; to < fps.length && BlockTables.block(fps[to], table) == block; to++) {
                    // extends the run
                }
                buckets.addAll(table, fps, from, to);
            }
            return fps.length;
        }
        int changed = 0;
        for (long fp : fps) {
            changed += buckets.add(table, fp, true) ? 1 : 0;
        }
        return changed;
    }

    public int bucketRemove(String collection, long generation, int table, long[] fps) {
        CollectionGenerations c = collection(collection);
        int changed = 0;
        for (long fp : fps) {
            // Recorded even where the generation is missing: a running pull may be about to copy it.
            try (ActivePulls.Stripe s = pulls.changing(Partitions.ofBucket(table, BlockTables.block(fp, table)),
                    new PullTombstones.BucketEntry(collection, generation, table, fp))) {
                CollectionStore store = c.existing(generation);
                changed += store != null && store.buckets().remove(table, fp) ? 1 : 0;
            }
        }
        log.bucketRemove(collection, generation, table, fps);
        return changed;
    }

    /**
     * id -> fingerprint in {@code generation} for each pair, unbinding the id from every other
     * generation (an id lives in one); returns each id's previous binding, if any.
     */
    public Previous bindIds(String collection, long generation, String[] ids, long[] fps) {
        CollectionGenerations c = collection(collection);
        DocMaps target = c.writable(generation).docs();
        Previous out = new Previous(ids.length);
        for (int i = 0; i < ids.length; i++) {
            // A running pull must not copy the id's old binding over this one.
            try (ActivePulls.Stripe s = pulls.changing(Partitions.ofId(ids[i]), new PullTombstones.Id(collection, ids[i]))) {
                bind(c, target, generation, ids[i], fps[i], out, i);
            }
        }
        log.bindIds(collection, generation, ids, fps);
        return out;
    }

    /** Binds an id copied from another node (the caller holds its partition's lock). */
    void bindCopied(String collection, long generation, String id, long fp) {
        CollectionGenerations c = collection(collection);
        DocMaps target = c.writable(generation).docs();
        OptionalLong held = target.fingerprintOf(id);
        if (held.isPresent() && held.getAsLong() == fp) {
            return; // bound so already, as most of a restarted node's copies are: a read, not a write
        }
        bind(c, target, generation, id, fp, new Previous(1), 0);
    }

    private static void bind(CollectionGenerations c, DocMaps target, long generation, String id, long fp, Previous out, int i) {
        for (Map.Entry<Long, CollectionStore> e : c.from(Long.MIN_VALUE)) {
            // A re-bound id's old short text is gone; the router stores the new one after binding.
            e.getValue().texts().remove(id);
            if (e.getKey() != generation) {
                out.set(i, e.getValue().docs().unbind(id), e.getKey());
            }
        }
        OptionalLong same = target.bind(id, fp);
        if (same.isPresent()) {
            out.set(i, same, generation);
        }
    }

    /** Unbinds each id from every generation; returns what it was bound to. */
    public Previous unbindIds(String collection, String[] ids) {
        CollectionGenerations c = collection(collection);
        Previous out = new Previous(ids.length);
        for (int i = 0; i < ids.length; i++) {
            try (ActivePulls.Stripe s = pulls.changing(Partitions.ofId(ids[i]), new PullTombstones.Id(collection, ids[i]))) {
                for (Map.Entry<Long, CollectionStore> e : c.from(Long.MIN_VALUE)) {
                    out.set(i, e.getValue().docs().unbind(ids[i]), e.getKey());
                    e.getValue().texts().remove(ids[i]);
                }
            }
        }
        log.unbindIds(collection, ids);
        return out;
    }

    /** Adds ids[i] to fps[i] in {@code generation}; flag i = fps[i] had no ids there before. */
    public boolean[] attachIds(String collection, long generation, long[] fps, String[] ids) {
        DocMaps docs = collection(collection).writable(generation).docs();
        boolean[] out = new boolean[fps.length];
        boolean watched = pulls.watching();
        for (int i = 0; i < fps.length; i++) {
            if (!watched) {
                out[i] = docs.attach(fps[i], ids[i]);
                continue;
            }
            try (ActivePulls.Stripe s = pulls.adding(Partitions.ofFingerprint(fps[i]),
                    new PullTombstones.Attachment(collection, generation, fps[i], ids[i]))) {
                out[i] = docs.attach(fps[i], ids[i]);
            }
        }
        log.attachIds(collection, generation, fps, ids);
        return out;
    }

    /** Removes ids[i] from fps[i] in {@code generation}; flag i = fps[i] has no ids left there. */
    public boolean[] detachIds(String collection, long generation, long[] fps, String[] ids) {
        CollectionGenerations c = collection(collection);
        boolean[] out = new boolean[fps.length];
        for (int i = 0; i < fps.length; i++) {
            try (ActivePulls.Stripe s = pulls.changing(Partitions.ofFingerprint(fps[i]),
                    new PullTombstones.Attachment(collection, generation, fps[i], ids[i]))) {
                CollectionStore store = c.existing(generation);
                out[i] = store == null || store.docs().detach(fps[i], ids[i]);
            }
        }
        log.detachIds(collection, generation, fps, ids);
        return out;
    }

    /** All ids of fps[i] in generations[i]. */
    public String[][] resolveIds(String collection, long[] generations, long[] fps) {
        IdList[] lists = resolveIds(collection, generations, fps, 0);
        String[][] out = new String[lists.length][];
        for (int i = 0; i < lists.length; i++) {
            out[i] = lists[i].ids();
        }
        return out;
    }

    /** Up to {@code limit} ids (0: all) of fps[i] in generations[i], and how many it has there. */
    public IdList[] resolveIds(String collection, long[] generations, long[] fps, int limit) {
        CollectionGenerations c = collection(collection);
        IdList[] out = new IdList[fps.length];
        for (int i = 0; i < fps.length; i++) {
            out[i] = ids(c, generations[i], fps[i], limit);
        }
        return out;
    }

    /** Up to {@code limit} ids of {@code fp} in {@code generation}: {@link #resolveIds} for one fingerprint. */
    public IdList resolveIds(String collection, long generation, long fp, int limit) {
        return ids(collection(collection), generation, fp, limit);
    }

    /**
     * As {@link #resolveIds(String, long, long, int)}, in the stores found beforehand: a query
     * resolves the ids of each of its candidates, and looking up the collection and generation
     * for each was 4% of a 60-word text's Dedup.
     */
    public IdList resolveIds(Stores stores, long generation, long fp, int limit) {
        CollectionStore store = stores.of(generation);
        return store == null ? IdList.NONE : store.docs().ids(fp, limit);
    }

    private static IdList ids(CollectionGenerations c, long generation, long fp, int limit) {
        CollectionStore store = c.existing(generation);
        return store == null ? IdList.NONE : store.docs().ids(fp, limit);
    }

    /**
     * For each 16-byte content hash, the fingerprint recorded for it in the newest of
     * {@code generations} that has it ({@code generations()[i]} = -1 where none has).
     */
    public Found lookupContent(String collection, long[] generations, byte[][] hashes) {
        CollectionGenerations c = collection(collection);
        long[] fps = new long[hashes.length];
        long[] found = new long[hashes.length];
        java.util.Arrays.fill(found, -1);
        for (int i = 0; i < hashes.length; i++) {
            for (int g = generations.length - 1; g >= 0 && found[i] < 0; g--) {
                CollectionStore store = c.existing(generations[g]);
                Long fp = store == null ? null : store.contents().get(hashes[i]);
                if (fp != null) {
                    fps[i] = fp;
                    found[i] = generations[g];
                }
            }
        }
        return new Found(fps, found);
    }

    /** Stores the short texts of ids (bound in {@code generation}) for verification. */
    public int putTexts(String collection, long generation, String[] ids, String[] texts) {
        CollectionStore store = collection(collection).writable(generation);
        for (int i = 0; i < ids.length; i++) {
            store.texts().put(ids[i], texts[i]);
        }
        log.putTexts(collection, generation, ids, texts);
        return ids.length;
    }

    /**
     * Removes what is kept of {@code ids} in {@code generation}: the router drops a fingerprint's
     * sketch (its {@link io.simdex.server.store.FingerprintSketch#key}) once the fingerprint has no
     * document left there, so that a later document of that fingerprint given without a text is
     * not judged by a deleted text's sketch, and the sketch's bytes are freed. Returns how many
     * were kept.
     */
    public int dropTexts(String collection, long generation, String[] ids) {
        CollectionStore store = collection(collection).existing(generation);
        int dropped = 0;
        for (String id : ids) {
            // A running pull must not copy the dropped entry back.
            try (ActivePulls.Stripe s = pulls.changing(Partitions.ofId(id), new PullTombstones.Id(collection, id))) {
                dropped += store != null && store.texts().remove(id) ? 1 : 0;
            }
        }
        log.dropTexts(collection, generation, ids);
        return dropped;
    }

    /** The stored short text of each id, searched in {@code generations}; null where there is none. */
    public String[] getTexts(String collection, long[] generations, String[] ids) {
        CollectionGenerations c = collection(collection);
        String[] out = new String[ids.length];
        for (int i = 0; i < ids.length; i++) {
            for (int g = generations.length - 1; g >= 0 && out[i] == null; g--) {
                CollectionStore store = c.existing(generations[g]);
                out[i] = store == null ? null : store.texts().get(ids[i]);
            }
        }
        return out;
    }

    /** A page of bindings and where the next begins ({@code next} null: nothing follows). */
    public record ExportPage(List<String> ids, long[] fingerprints, long generation, DocMaps.Position next) {
    }

    /**
     * Up to about {@code limit} id -> fingerprint bindings whose ids {@code partitions} holds,
     * from {@code from} of retention generation {@code generation} on, through
     * {@code generations} (ascending) in order: {@link DocMaps#exportBindings} of each generation
     * this node holds, until a page is full. A generation this node lacks has nothing to give.
     */
    public ExportPage exportIds(String collection, long[] generations, PartitionSet partitions, long generation, DocMaps.Position from,
            int limit) {
        CollectionGenerations c = collection(collection);
        List<String> ids = new ArrayList<>();
        MatchBuffer fps = new MatchBuffer();
        for (long g : generations) {
            if (Long.compareUnsigned(g, generation) < 0) {
                continue;
            }
            CollectionStore store = c.existing(g);
            DocMaps.Position start = g == generation ? from : DocMaps.Position.START;
            DocMaps.Position next = store == null ? null
                    : store.docs().exportBindings(start, ids.size(), limit, partitions::containsId, (id, fp) -> {
                        ids.add(id);
                        fps.add(fp);
                    });
            if (next != null) {
                return new ExportPage(ids, fps.toArray(), g, next);
            }
            if (ids.size() >= limit) {
                return nextGeneration(ids, fps, generations, g);
            }
        }
        return new ExportPage(ids, fps.toArray(), 0, null);
    }

    /** A full page that ended with generation {@code g}: the next begins at the generation after it, if any. */
    private static ExportPage nextGeneration(List<String> ids, MatchBuffer fps, long[] generations, long g) {
        for (long later : generations) {
            if (Long.compareUnsigned(later, g) > 0) {
                return new ExportPage(ids, fps.toArray(), later, DocMaps.Position.START);
            }
        }
        return new ExportPage(ids, fps.toArray(), 0, null);
    }

    /**
     * The fingerprint each of {@code ids} is bound to in the newest of {@code generations} that
     * binds it, in {@code fps}; {@code found[i]} false where none does.
     */
    public void fingerprintsOf(String collection, long[] generations, String[] ids, long[] fps, boolean[] found) {
        CollectionGenerations c = collection(collection);
        for (int i = 0; i < ids.length; i++) {
            for (int g = generations.length - 1; g >= 0 && !found[i]; g--) {
                CollectionStore store = c.existing(generations[g]);
                OptionalLong fp = store == null ? OptionalLong.empty() : store.docs().fingerprintOf(ids[i]);
                if (fp.isPresent()) {
                    fps[i] = fp.getAsLong();
                    found[i] = true;
                }
            }
        }
    }

    /**
     * The packed sketch kept for {@code fp} in {@code generation} (at the owner of its
     * {@link io.simdex.server.store.FingerprintSketch#key}); null if none: {@link #getTexts} of
     * that key without the string forms, for queries in this process.
     */
    public byte[] packedSketchOf(String collection, long generation, long fp) {
        CollectionStore store = collection(collection).existing(generation);
        return store == null ? null : store.texts().packedSketchOf(fp);
    }

    /** As {@link #packedSketchOf(String, long, long)}, in the stores found beforehand (see {@link #resolveIds(Stores, long, long, int)}). */
    public byte[] packedSketchOf(Stores stores, long generation, long fp) {
        CollectionStore store = stores.of(generation);
        return store == null ? null : store.texts().packedSketchOf(fp);
    }

    /** Records content hash -> fingerprint in {@code generation}. */
    public int recordContent(String collection, long generation, byte[][] hashes, long[] fps) {
        CollectionStore store = collection(collection).writable(generation);
        for (int i = 0; i < hashes.length; i++) {
            store.contents().put(hashes[i], fps[i]);
        }
        log.recordContent(collection, generation, hashes, fps);
        return hashes.length;
    }

    /**
     * Creates {@code collection}'s store for {@code generation} now, so its first write does not
     * wait for the files; returns 1 if it was created, 0 if it existed or if the collection has
     * no store here yet and {@code evenIfUnused} is false.
     */
    public int prepareGeneration(String collection, long generation, boolean evenIfUnused) {
        int created = collection(collection).prepare(generation, evenIfUnused) ? 1 : 0;
        log.prepareGeneration(collection, generation, evenIfUnused);
        return created;
    }

    /** Closes and deletes {@code collection}'s generations before {@code minGeneration}; returns how many. */
    public int expireBefore(String collection, long minGeneration) {
        int expired = pulls.changingAll(t -> t.expired(collection, minGeneration), () -> collection(collection).expireBefore(minGeneration));
        log.expireBefore(collection, minGeneration);
        return expired;
    }

    /**
     * Locks {@code bucketKeys} of {@code collection} for {@code token} (see {@link BucketLocks}):
     * the largest stamp on them and their pending intents, or {@link LockGrant#BUSY} if they
     * stayed busy for {@code waitMillis}.
     */
    public LockGrant lockBuckets(String collection, int[] bucketKeys, long token, long leaseMillis, long waitMillis)
            throws InterruptedException {
        return locks.grant(lockKeys(collection, bucketKeys), token, leaseMillis, waitMillis);
    }

    /**
     * As above for a caller that may go away while it waits: once {@code abandoned} says so (see
     * {@link #wakeLockWaiters}), the keys taken are let go and the answer is {@link LockGrant#BUSY}.
     */
    public LockGrant lockBuckets(String collection, int[] bucketKeys, long token, long leaseMillis, long waitMillis,
            BooleanSupplier abandoned) throws InterruptedException {
        return locks.grant(lockKeys(collection, bucketKeys), token, leaseMillis, waitMillis, abandoned);
    }

    /** Makes every lock call waiting for busy keys check at once whether its caller is gone. */
    public void wakeLockWaiters() {
        locks.wakeWaiters();
    }

    /** Releases the keys; {@code keepPending}: their intents stay for the next holder (see {@link BucketLocks}). */
    public int unlockBuckets(String collection, int[] bucketKeys, long token, long stamp, boolean keepPending) {
        return locks.unlock(lockKeys(collection, bucketKeys), token, stamp, keepPending);
    }

    /** Leaves {@code docs} on the keys while {@code token} holds them all; how many it holds (fewer: nothing was left). */
    public int recordIntent(String collection, int[] bucketKeys, long token, long stamp, byte[] docs) {
        int held = locks.record(lockKeys(collection, bucketKeys), new LockGrant.Intent(token, stamp, docs));
        locks.forceIntents();
        return held;
    }

    /** Drops the pending intents of {@code tokens} (their documents are stored); how many. */
    public int settleIntents(long[] tokens) {
        return locks.settle(tokens);
    }

    /** The tokens of the Dedup intents pending here. */
    public long[] pendingIntents() {
        return locks.pendingTokens();
    }

    /** Those of {@code tokens} whose Dedup intents are pending here. */
    public long[] pendingIntents(long[] tokens) {
        return locks.pendingAmong(tokens);
    }

    /** The Dedup intents pending here, with the lock keys each was recorded on, but those of {@code except}. */
    List<IntentLog.Entry> intentRecords(long[] except) {
        return locks.records(except);
    }

    /**
     * Takes {@code records}, intents a peer holds that this node missed, as pending on their
     * keys ({@link IntentAdoption}); returns how many it took. With FSYNC durability they are on
     * stable storage when this returns.
     */
    int adoptIntents(List<IntentLog.Entry> records) {
        int adopted = 0;
        for (IntentLog.Entry e : records) {
            adopted += locks.adopt(e.intent(), e.keys()) ? 1 : 0;
        }
        locks.forceIntents();
        return adopted;
    }

    /** The bucket key of a lock key ({@link #lockKeys}). */
    static int bucketKeyOf(long lockKey) {
        return (int) (lockKey & LOCK_KEY_MASK);
    }

    /** A lock key's bits below the collection's salt hold the bucket key (18 bits: table and block). */
    private static final int SALT_SHIFT = 20;
    private static final long LOCK_KEY_MASK = (1L << SALT_SHIFT) - 1;

    /** One sorted long per (collection, bucket key); sorting here gives every router the same order. */
    private static long[] lockKeys(String collection, int[] bucketKeys) {
        long salt = io.simdex.core.Hashing.hash(collection) << SALT_SHIFT;
        long[] keys = new long[bucketKeys.length];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = salt ^ bucketKeys[i];
        }
        java.util.Arrays.sort(keys);
        return keys;
    }

    /**
     * For each 128-bit URL hash: true when job's seen-set did not hold it at {@code now} (absent
     * or expired). Unless {@code checkOnly}, every hash is added with expiry {@code expiresAt}.
     */
    public boolean[] checkUrls(String job, byte[][] hashes, long now, long expiresAt, boolean checkOnly) {
        UrlSeenSet set = urlJob(job);
        boolean[] fresh = new boolean[hashes.length];
        for (int i = 0; i < hashes.length; i++) {
            fresh[i] = checkOnly ? !set.contains(hashes[i], now) : set.checkAndAdd(hashes[i], now, expiresAt);
        }
        if (!checkOnly) {
            log.addUrls(job, hashes, now, expiresAt);
        }
        return fresh;
    }

    /** Removes expired URLs from every job's seen-set; returns how many. */
    public long sweepUrls(long now) {
        long removed = 0;
        for (UrlSeenSet set : urlJobs.values()) {
            removed += set.sweep(now);
        }
        log.sweepUrls(now);
        return removed;
    }

    /** Forgets a job's seen-set, files included; true if it existed. */
    public synchronized boolean dropUrlJob(String job) {
        boolean existed = pulls.changingAll(t -> t.add(new PullTombstones.UrlJob(job)), () -> dropUrlJobFiles(job));
        log.dropUrlJob(job);
        return existed;
    }

    private boolean dropUrlJobFiles(String job) {
        UrlSeenSet set = urlJob(job);
        boolean existed = set.size() > 0;
        urlJobs.remove(job);
        set.close();
        try {
            FileTrees.delete(urlJobDir(job));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete the files of URL job " + job, e);
        }
        return existed;
    }

    UrlSeenSet urlJob(String job) {
        return urlJobs.computeIfAbsent(job, j -> new UrlSeenSet(urlJobDir(j), 1 << 20));
    }

    /** {@code urls.jobs/JOB}: the dot keeps it apart from collection directories, whose names cannot have one. */
    private Path urlJobDir(String job) {
        return dataDir.resolve("urls.jobs").resolve(job);
    }

    /**
     * Deletes every record of {@code partitions} (they moved to other nodes) in every collection,
     * generation and URL job; returns how many records that was.
     */
    public long dropPartitions(PartitionSet partitions) {
        long removed = PartitionDrop.run(this, partitions);
        log.dropPartitions(partitions);
        return removed;
    }

    /** Sizes of {@code collection}'s generations at or after {@code minGeneration}. */
    public ShardStats stats(String collection, long minGeneration) {
        long docs = 0, fps = 0, entries = 0, tableBytes = 0, docBytes = 0;
        for (Map.Entry<Long, CollectionStore> e : collection(collection).from(minGeneration)) {
            CollectionStore s = e.getValue();
            docs += s.docs().documents();
            fps += s.docs().fingerprints();
            entries += s.buckets().entries();
            tableBytes += s.buckets().offHeapBytes();
            docBytes += s.docs().offHeapBytes();
        }
        return new ShardStats(docs, fps, entries, tableBytes, docBytes);
    }

    /**
     * What each collection stored here holds and occupies, over all its generations, by name
     * (those on disk not used since the start too): for metrics, read once per scrape.
     */
    public Map<String, CollectionSizes> sizes() {
        Map<String, CollectionSizes> out = new TreeMap<>();
        for (String name : collectionNames()) {
            CollectionSizes sum = CollectionSizes.EMPTY;
            for (Map.Entry<Long, CollectionStore> e : collection(name).from(Long.MIN_VALUE)) {
                try {
                    sum = sum.plus(CollectionSizes.of(e.getValue()));
                } catch (IllegalStateException expiredMeanwhile) {
                    // its maps were closed by retention while read (ChronicleHashClosedException): gone
                }
            }
            out.put(name, sum);
        }
        return out;
    }

    @Override
    public void close() {
        collections.values().forEach(CollectionGenerations::close);
        collections.clear();
        urlJobs.values().forEach(UrlSeenSet::close);
        urlJobs.clear();
        log.close();
        intentLog.close();
        if (dirLock != null) {
            dirLock.close();
        }
    }

    /** A data directory taken for this process, and its log, opened once it was taken. */
    private record Held(DataDirLock lock, MutationLog log) {
        static Held open(Path dataDir, Supplier<MutationLog> log) {
            DataDirLock lock = DataDirLock.take(dataDir);
            try {
                return new Held(lock, log.get());
            } catch (RuntimeException e) {
                lock.close();
                throw e;
            }
        }

        /** Closes the log, and lets the directory go if this holds it. */
        void close() {
            try {
                log.close();
            } finally {
                if (lock != null) {
                    lock.close();
                }
            }
        }
    }

    /**
     * Returns once every change made so far is on stable storage ({@link Durability#FSYNC}: its
     * log record forced; one force serves every caller waiting); at once with PROCESS. A caller
     * acknowledges its writes after this.
     *
     * @throws java.io.UncheckedIOException when the log failed: the writes may be lost
     */
    public void awaitDurable() {
        log.awaitDurable();
    }

    /**
     * As {@link #awaitDurable}, without a thread waiting: completed once every change made so far
     * is on stable storage, by the log's syncer thread (exceptionally when the log failed).
     */
    public CompletableFuture<Void> durable() {
        return log.durable();
    }

    /** What this node's write-ahead log has done since the node opened ({@link Durability#FSYNC}); none with PROCESS. */
    public WriteAheadLog.Stats logStats() {
        return log.stats();
    }

    /** Whether this node's write-ahead log has failed for good: its writes fail until it restarts (and replays). */
    public boolean logFailed() {
        return log.failed();
    }

    /**
     * With FSYNC, forces the stores to disk and drops the log records they hold: for changes
     * made without log records (partitions pulled from a peer) before they are relied on.
     */
    public void checkpoint() {
        log.checkpoint();
    }

    /** Previous bindings: {@code present[i]} says whether {@code previous[i]} (in {@code generation[i]}) means anything. */
    public record Previous(boolean[] present, long[] previous, long[] generation) {
        public Previous(int n) {
            this(new boolean[n], new long[n], new long[n]);
        }

        void set(int i, OptionalLong value, long g) {
            if (value.isPresent()) {
                present[i] = true;
                previous[i] = value.getAsLong();
                generation[i] = g;
            }
        }
    }

    /** Sizes of one collection on one shard. */
    public record ShardStats(long documents, long fingerprints, long bucketEntries, long tableBytes, long docBytes) {
    }
}
