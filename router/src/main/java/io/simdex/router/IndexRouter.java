package io.simdex.router;

import io.simdex.core.BlockTables;
import io.simdex.core.Hamming;
import io.simdex.server.ShardNode;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import io.grpc.Status;

/**
 * The index across shards: what Insert, Query, Dedup and Delete do, in terms of the shard
 * protocol. Arguments are validated by the caller ({@link SimdexService}).
 *
 * <h2>Where things live</h2>
 * A document (id, fp) is recorded three ways, each at the shard {@link Placement} names:
 * id -> fp at the owner of the id, fp -> ids at the owner of fp, and fp in the four buckets
 * (t, block t of fp) at each bucket's owner. A query probes the four buckets, then resolves the
 * matched fingerprints' ids; buckets never carry ids, which keeps them at 6 bytes an entry.
 *
 * <h2>Order of writes</h2>
 * Insert binds ids first, moves re-bound ids off their old fingerprints, then attaches ids and
 * adds bucket entries; delete undoes in reverse. A fingerprint in a bucket without ids is
 * invisible (queries drop it), so a write cut short leaves nothing wrong to see, and every step
 * is idempotent, so retrying the request completes it.
 */
public final class IndexRouter implements AutoCloseable {
    private final ShardClient[] shards;
    private final Placement placement;
    /** Shard-side bucket locks expire this long after being granted. */
    static final int LEASE_MILLIS = 30_000;
    /** How long a Dedup waits for busy buckets before failing with ABORTED. */
    static final int WAIT_MILLIS = 10_000;

    public IndexRouter(List<? extends ShardClient> shards, Placement placement) {
        if (placement.shards() != shards.size()) {
            throw new IllegalArgumentException(placement.shards() + " shards placed but " + shards.size() + " given");
        }
        this.shards = shards.toArray(new ShardClient[0]);
        this.placement = placement;
    }

    /** A stored document near a probe. */
    public record Hit(String id, long fingerprint, int distance) {
        static final Comparator<Hit> NEAREST_FIRST = Comparator.comparingInt(Hit::distance).thenComparing(Hit::id);
    }

    /** Dedup's decision for one document: inserted, or the stored documents it duplicates; its place in the serial order. */
    public record Decision(boolean inserted, List<Hit> duplicates, long sequence) {
    }

    /** Counts of a collection across all shards. */
    public record Stats(long documents, long fingerprints, long bucketEntries, long tableBytes, long docBytes, int shards) {
    }

    /** Stores each (ids[i], fps[i]); an id given twice keeps its last fingerprint. */
    public void insert(String c, String[] ids, long[] fps) {
        int[] last = lastOccurrences(ids);
        ids = Fanout.pick(ids, last);
        fps = Fanout.pick(fps, last);
        String[] finalIds = ids;

        // 1. id -> fp, learning what each id was bound to before.
        ShardNode.Previous previous = bind(c, ids, fps);
        // 2. Ids that moved leave their old fingerprints.
        List<Integer> moved = new ArrayList<>();
        for (int i = 0; i < ids.length; i++) {
            if (previous.present()[i] && previous.previous()[i] != fps[i]) {
                moved.add(i);
            }
        }
        if (!moved.isEmpty()) {
            int[] m = moved.stream().mapToInt(Integer::intValue).toArray();
            detachAndUnindex(c, Fanout.pick(previous.previous(), m), Fanout.pick(finalIds, m));
        }
        // 3. fp -> ids, then 4. the buckets. Bucket adds are idempotent, and always sent, so a
        // retry after a failure between 3 and 4 completes the insert.
        long[] finalFps = fps;
        Fanout f = Fanout.start();
        int[][] byFp = Fanout.group(fps.length, shards.length, i -> placement.ownerOfFingerprint(finalFps[i]));
        for (int s = 0; s < shards.length; s++) {
            if (byFp[s].length > 0) {
                f.add(shards[s].attachIds(c, Fanout.pick(fps, byFp[s]), Fanout.pick(ids, byFp[s])));
            }
        }
        f.await();
        buckets(c, distinct(fps), true);
    }

    /** For each probe, every stored document within {@code maxDistance}, nearest first, at most {@code limit} (0: all). */
    public List<List<Hit>> query(String c, long[] probes, int maxDistance, int limit) {
        long[][] matches = probe(c, probes, maxDistance);
        Map<Long, String[]> ids = resolve(c, matches);
        List<List<Hit>> out = new ArrayList<>(probes.length);
        for (int q = 0; q < probes.length; q++) {
            List<Hit> hits = new ArrayList<>();
            for (long fp : matches[q]) {
                for (String id : ids.getOrDefault(fp, new String[0])) {
                    hits.add(new Hit(id, fp, Hamming.distance(fp, probes[q])));
                }
            }
            hits.sort(Hit.NEAREST_FIRST);
            out.add(limit > 0 && hits.size() > limit ? List.copyOf(hits.subList(0, limit)) : hits);
        }
        return out;
    }

    /**
     * Check-and-insert in request order: a document is stored only if no stored document and no
     * document kept earlier in this request lies within {@code maxDistance}.
     *
     * <p>Race-free across routers: the call holds, on the owning shards, the locks of every
     * bucket key of its documents (see the server's {@code BucketLocks}) from before its probe
     * until after its insert. Shards are locked in ascending order, so calls cannot deadlock.
     */
    public List<Decision> dedup(String c, String[] ids, long[] fps, int maxDistance) {
        int[] keys = bucketKeys(fps);
        int[][] byShard = Fanout.group(keys.length, shards.length, i -> placement.ownerOfBucket(keys[i] >>> BlockTables.BLOCK_BITS,
                keys[i] & (BlockTables.KEYS_PER_TABLE - 1)));
        long token = ThreadLocalRandom.current().nextLong();
        long started = System.nanoTime();
        boolean[] locked = new boolean[shards.length];
        long stamp = 0;
        long released = -1;
        try {
            for (int s = 0; s < shards.length; s++) {
                if (byShard[s].length > 0) {
                    stamp = Math.max(stamp, Fanout.join(shards[s].lockBuckets(c, pick(keys, byShard[s]), token, LEASE_MILLIS, WAIT_MILLIS)));
                    locked[s] = true;
                }
            }
            List<Decision> decisions = decide(c, ids, fps, maxDistance, stamp + 1);
            if (System.nanoTime() - started > LEASE_MILLIS / 2 * 1_000_000L) {
                // The locks may be about to expire: inserting now could race another router.
                throw Status.ABORTED.withDescription("dedup took longer than half the lock lease; retry").asRuntimeException();
            }
            int[] kept = java.util.stream.IntStream.range(0, ids.length).filter(i -> decisions.get(i).inserted()).toArray();
            if (kept.length > 0) {
                insert(c, Fanout.pick(ids, kept), Fanout.pick(fps, kept));
            }
            released = stamp + ids.length;
            return decisions;
        } finally {
            unlock(c, keys, byShard, locked, token, released >= 0 ? released : stamp);
        }
    }

    /** The decisions for one locked batch, numbered from {@code firstSequence}. */
    private List<Decision> decide(String c, String[] ids, long[] fps, int maxDistance, long firstSequence) {
        List<List<Hit>> stored = query(c, fps, maxDistance, 0);
        BatchTables kept = new BatchTables();
        List<Decision> decisions = new ArrayList<>(ids.length);
        for (int i = 0; i < ids.length; i++) {
            List<Hit> dups = new ArrayList<>(stored.get(i));
            for (int j : kept.within(fps[i], maxDistance, fps)) {
                dups.add(new Hit(ids[j], fps[j], Hamming.distance(fps[i], fps[j])));
            }
            if (dups.isEmpty()) {
                kept.add(i, fps[i]);
                decisions.add(new Decision(true, List.of(), firstSequence + i));
            } else {
                dups.sort(Hit.NEAREST_FIRST);
                decisions.add(new Decision(false, dups, firstSequence + i));
            }
        }
        return decisions;
    }

    private void unlock(String c, int[] keys, int[][] byShard, boolean[] locked, long token, long stamp) {
        Fanout f = Fanout.start();
        for (int s = 0; s < shards.length; s++) {
            if (locked[s]) {
                f.add(shards[s].unlockBuckets(c, pick(keys, byShard[s]), token, stamp));
            }
        }
        try {
            f.await();
        } catch (RuntimeException e) {
            // The shard's lease frees the keys; the caller's outcome stands.
        }
    }

    /** The distinct bucket keys of {@code fps}, ascending. */
    private static int[] bucketKeys(long[] fps) {
        int[] keys = new int[fps.length * BlockTables.TABLES];
        int n = 0;
        for (long fp : fps) {
            for (int t = 0; t < BlockTables.TABLES; t++) {
                keys[n++] = BlockTables.bucketKey(t, BlockTables.block(fp, t));
            }
        }
        return Arrays.stream(keys).sorted().distinct().toArray();
    }

    private static int[] pick(int[] values, int[] indexes) {
        int[] out = new int[indexes.length];
        for (int i = 0; i < indexes.length; i++) {
            out[i] = values[indexes[i]];
        }
        return out;
    }

    /** Removes documents by id; returns how many existed. */
    public int delete(String c, String[] ids) {
        ids = Arrays.stream(ids).distinct().toArray(String[]::new);
        String[] finalIds = ids;
        ShardNode.Previous previous = new ShardNode.Previous(new boolean[ids.length], new long[ids.length]);
        Fanout f = Fanout.start();
        int[][] byId = Fanout.group(ids.length, shards.length, i -> placement.ownerOfId(finalIds[i]));
        for (int s = 0; s < shards.length; s++) {
            int[] group = byId[s];
            if (group.length > 0) {
                f.add(shards[s].unbindIds(c, Fanout.pick(ids, group))).thenAccept(p -> scatter(p, group, previous));
            }
        }
        f.await();
        List<Integer> found = new ArrayList<>();
        for (int i = 0; i < ids.length; i++) {
            if (previous.present()[i]) {
                found.add(i);
            }
        }
        int[] k = found.stream().mapToInt(Integer::intValue).toArray();
        if (k.length > 0) {
            detachAndUnindex(c, Fanout.pick(previous.previous(), k), Fanout.pick(ids, k));
        }
        return k.length;
    }

    public Stats stats(String c) {
        Fanout f = Fanout.start();
        List<CompletableFuture<ShardNode.ShardStats>> parts = new ArrayList<>();
        for (ShardClient shard : shards) {
            parts.add(f.add(shard.stats(c)));
        }
        f.await();
        long docs = 0, fps = 0, entries = 0, tableBytes = 0, docBytes = 0;
        for (CompletableFuture<ShardNode.ShardStats> p : parts) {
            ShardNode.ShardStats s = p.join();
            docs += s.documents();
            fps += s.fingerprints();
            entries += s.bucketEntries();
            tableBytes += s.tableBytes();
            docBytes += s.docBytes();
        }
        return new Stats(docs, fps, entries, tableBytes, docBytes, shards.length);
    }

    public int shardCount() {
        return shards.length;
    }

    @Override
    public void close() {
        for (ShardClient shard : shards) {
            shard.close();
        }
    }

    /** Probes all four tables for every probe; returns each probe's distinct matched fingerprints. */
    private long[][] probe(String c, long[] probes, int maxDistance) {
        long[][][] perTable = new long[BlockTables.TABLES][probes.length][];
        Fanout f = Fanout.start();
        for (int t = 0; t < BlockTables.TABLES; t++) {
            int table = t;
            int[][] groups = Fanout.group(probes.length, shards.length,
                    i -> placement.ownerOfBucket(table, BlockTables.block(probes[i], table)));
            for (int s = 0; s < shards.length; s++) {
                int[] group = groups[s];
                if (group.length > 0) {
                    f.add(shards[s].probe(c, t, Fanout.pick(probes, group), maxDistance)).thenAccept(found -> {
                        for (int i = 0; i < group.length; i++) {
                            perTable[table][group[i]] = found[i];
                        }
                    });
                }
            }
        }
        f.await();
        long[][] out = new long[probes.length][];
        for (int q = 0; q < probes.length; q++) {
            int n = 0;
            for (int t = 0; t < BlockTables.TABLES; t++) {
                n += perTable[t][q].length;
            }
            long[] all = new long[n];
            int at = 0;
            for (int t = 0; t < BlockTables.TABLES; t++) {
                System.arraycopy(perTable[t][q], 0, all, at, perTable[t][q].length);
                at += perTable[t][q].length;
            }
            // A fingerprint equal in several blocks is found in several tables: keep it once.
            out[q] = n <= 1 ? all : distinct(all);
        }
        return out;
    }

    private Map<Long, String[]> resolve(String c, long[][] matches) {
        long[] all = distinct(Arrays.stream(matches).flatMapToLong(Arrays::stream).toArray());
        Map<Long, String[]> ids = new HashMap<>();
        if (all.length == 0) {
            return ids;
        }
        Fanout f = Fanout.start();
        int[][] groups = Fanout.group(all.length, shards.length, i -> placement.ownerOfFingerprint(all[i]));
        for (int s = 0; s < shards.length; s++) {
            int[] group = groups[s];
            if (group.length > 0) {
                long[] fps = Fanout.pick(all, group);
                f.add(shards[s].resolveIds(c, fps)).thenAccept(found -> {
                    synchronized (ids) {
                        for (int i = 0; i < fps.length; i++) {
                            ids.put(fps[i], found[i]);
                        }
                    }
                });
            }
        }
        f.await();
        return ids;
    }

    private ShardNode.Previous bind(String c, String[] ids, long[] fps) {
        ShardNode.Previous out = new ShardNode.Previous(new boolean[ids.length], new long[ids.length]);
        Fanout f = Fanout.start();
        int[][] groups = Fanout.group(ids.length, shards.length, i -> placement.ownerOfId(ids[i]));
        for (int s = 0; s < shards.length; s++) {
            int[] group = groups[s];
            if (group.length > 0) {
                f.add(shards[s].bindIds(c, Fanout.pick(ids, group), Fanout.pick(fps, group))).thenAccept(p -> scatter(p, group, out));
            }
        }
        f.await();
        return out;
    }

    /** Detaches ids[i] from fps[i]; fingerprints left without ids leave their buckets. */
    private void detachAndUnindex(String c, long[] fps, String[] ids) {
        boolean[] empty = new boolean[fps.length];
        Fanout f = Fanout.start();
        int[][] groups = Fanout.group(fps.length, shards.length, i -> placement.ownerOfFingerprint(fps[i]));
        for (int s = 0; s < shards.length; s++) {
            int[] group = groups[s];
            if (group.length > 0) {
                f.add(shards[s].detachIds(c, Fanout.pick(fps, group), Fanout.pick(ids, group))).thenAccept(flags -> {
                    for (int i = 0; i < group.length; i++) {
                        empty[group[i]] = flags[i];
                    }
                });
            }
        }
        f.await();
        long[] gone = distinct(java.util.stream.IntStream.range(0, fps.length).filter(i -> empty[i]).mapToLong(i -> fps[i]).toArray());
        if (gone.length > 0) {
            buckets(c, gone, false);
        }
    }

    /** Adds (or removes) each fingerprint in its four buckets, one call per (table, owner). */
    private void buckets(String c, long[] fps, boolean add) {
        Fanout f = Fanout.start();
        for (int t = 0; t < BlockTables.TABLES; t++) {
            int table = t;
            int[][] groups = Fanout.group(fps.length, shards.length,
                    i -> placement.ownerOfBucket(table, BlockTables.block(fps[i], table)));
            for (int s = 0; s < shards.length; s++) {
                if (groups[s].length > 0) {
                    long[] part = Fanout.pick(fps, groups[s]);
                    f.add(add ? shards[s].bucketAdd(c, t, part) : shards[s].bucketRemove(c, t, part));
                }
            }
        }
        f.await();
    }

    private static void scatter(ShardNode.Previous part, int[] group, ShardNode.Previous into) {
        for (int i = 0; i < group.length; i++) {
            into.present()[group[i]] = part.present()[i];
            into.previous()[group[i]] = part.previous()[i];
        }
    }

    private static long[] distinct(long[] values) {
        return Arrays.stream(values).distinct().toArray();
    }

    /** Indexes of the last occurrence of each distinct id, in order of those occurrences. */
    private static int[] lastOccurrences(String[] ids) {
        Map<String, Integer> last = new LinkedHashMap<>();
        for (int i = 0; i < ids.length; i++) {
            last.remove(ids[i]);
            last.put(ids[i], i);
        }
        if (last.size() == ids.length) {
            return java.util.stream.IntStream.range(0, ids.length).toArray();
        }
        return last.values().stream().mapToInt(Integer::intValue).toArray();
    }
}
