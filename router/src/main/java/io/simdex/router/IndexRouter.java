package io.simdex.router;

import io.grpc.Status;
import io.simdex.fingerprint.BlockTables;
import io.simdex.fingerprint.Hamming;
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
import java.util.function.Function;
import java.util.stream.IntStream;

/**
 * The index across shards: what Insert, Query, Dedup and Delete do, in terms of the shard
 * protocol. Arguments are validated by the caller ({@link SimdexService}).
 *
 * <h2>Where things live</h2>
 * A document (id, fp) of generation g is recorded three ways, each at the shard
 * {@link Placement} names: id -> fp at the owner of the id, fp -> ids at the owner of fp, and
 * fp in the four buckets (t, block t of fp) at each bucket's owner. A query probes the four
 * buckets of every live generation, then resolves the matched fingerprints' ids; buckets never
 * carry ids, which keeps them at 6 bytes an entry. An id lives in one generation: binding it
 * in a new one unbinds it from the others (all on the id's owner).
 *
 * <h2>Order of writes</h2>
 * Insert binds ids first, moves re-bound ids off their old fingerprints, then attaches ids and
 * adds bucket entries; delete undoes in reverse. A fingerprint in a bucket without ids is
 * invisible (queries drop it), so a write cut short leaves nothing wrong to see, and every step
 * is idempotent, so retrying the request completes it.
 */
public final class IndexRouter implements AutoCloseable {
    /** Shard-side bucket locks expire this long after being granted. */
    static final int LEASE_MILLIS = 30_000;
    /** How long a Dedup waits for busy buckets before failing with ABORTED. */
    static final int WAIT_MILLIS = 10_000;
    /** Up to this many matches, {@link #distinctPairs} compares pairwise instead of hashing. */
    private static final int SMALL_PAIRS = 32;

    private final ShardClient[] shards;
    private final Placement placement;
    private final ShardClient[] nodes;
    private final int replication;
    private final boolean ownsShards;
    /** Queries without the fan-out, when every shard answers in the caller's thread; else null. */
    private final LocalQuery local;

    /** Over unreplicated shards, which this router owns (closes). */
    public IndexRouter(List<? extends ShardClient> shards, Placement placement) {
        this(shards, placement, shards, 1, true);
    }

    /**
     * Over groups of a cluster: {@code shards} are the placement's groups (replica sets),
     * {@code nodes} every node once (for stats and retention, which are per node), each record
     * kept {@code replication} times. Whoever built the groups closes them.
     */
    public IndexRouter(List<? extends ShardClient> shards, Placement placement, List<? extends ShardClient> nodes, int replication,
            boolean ownsShards) {
        if (placement.shards() != shards.size()) {
            throw new IllegalArgumentException(placement.shards() + " shards placed but " + shards.size() + " given");
        }
        this.shards = shards.toArray(new ShardClient[0]);
        this.placement = placement;
        this.nodes = nodes.toArray(new ShardClient[0]);
        this.replication = replication;
        this.ownsShards = ownsShards;
        this.local = LocalQuery.over(this.shards, placement);
    }

    /** Whether queries skip the fan-out (every shard answers in the caller's thread). */
    boolean queriesInCallingThread() {
        return local != null;
    }

    /** A stored document near a probe; {@code similarity} is its verified shingle Jaccard, or -1 when not verified. */
    public record Hit(String id, long fingerprint, int distance, double similarity) {
        static final Comparator<Hit> NEAREST_FIRST = Comparator.comparingInt(Hit::distance).thenComparing(Hit::id);

        public Hit(String id, long fingerprint, int distance) {
            this(id, fingerprint, distance, -1);
        }
    }

    /** The short texts of a request: the collection's rule, and each item's normalised text where it is short (else null). */
    public record ShortTexts(ShortTextRule rule, String[] texts) {
        boolean any() {
            return Arrays.stream(texts).anyMatch(java.util.Objects::nonNull);
        }
    }

    /** Dedup's decision for one document: inserted, or the stored documents it duplicates; its place in the serial order. */
    public record Decision(boolean inserted, List<Hit> duplicates, long sequence) {
    }

    /** Counts of a collection's live generations across all shards. */
    public record Stats(long documents, long fingerprints, long bucketEntries, long tableBytes, long docBytes, int shards) {
    }

    /** Stores each (ids[i], fps[i]) in the window's current generation; an id given twice keeps its last fingerprint. */
    public void insert(String c, Window w, String[] ids, long[] fps) {
        insert(c, w, ids, fps, null);
    }

    /** As {@link #insert(String, Window, String[], long[])}, also storing the non-null {@code shortTexts[i]} for verification. */
    public void insert(String c, Window w, String[] ids, long[] fps, String[] shortTexts) {
        insert(c, w, ids, fps, shortTexts, null);
    }

    /**
     * As {@link #insert(String, Window, String[], long[], String[])}; with {@code held} non-null
     * (a bulk load) the bucket appends are held there and applied a window at a time.
     */
    public void insert(String c, Window w, String[] ids, long[] fps, String[] shortTexts, BulkAppends held) {
        int[] last = lastOccurrences(ids);
        String[] idz = Fanout.pick(ids, last);
        long[] fpz = Fanout.pick(fps, last);
        String[] textz = shortTexts == null ? null : Fanout.pick(shortTexts, last);
        long g = w.current();

        // 1. id -> fp, learning what each id was bound to before (in any generation).
        ShardNode.Previous previous = new ShardNode.Previous(idz.length);
        Fanout f = Fanout.start();
        int[][] byId = Fanout.group(idz.length, shards.length, i -> placement.ownerOfId(idz[i]));
        for (int s = 0; s < shards.length; s++) {
            int[] group = byId[s];
            if (group.length > 0) {
                f.add(shards[s].bindIds(c, g, Fanout.pick(idz, group), Fanout.pick(fpz, group)), p -> scatter(p, group, previous));
            }
        }
        f.await();
        // 2. Ids that moved leave their old fingerprints.
        int[] moved = IntStream.range(0, idz.length)
                .filter(i -> previous.present()[i] && (previous.previous()[i] != fpz[i] || previous.generation()[i] != g)).toArray();
        if (moved.length > 0) {
            if (held != null) {
                // A held append of an old fingerprint must land before its removal, or outlive it.
                held.apply(this);
            }
            detachAndUnindex(c, Fanout.pick(previous.generation(), moved), Fanout.pick(previous.previous(), moved), Fanout.pick(idz, moved));
        }
        // 3. fp -> ids, then 4. the buckets. Bucket adds are always sent, so a retry after a
        // failure between 3 and 4 completes the insert: a fingerprint that had no ids is new and
        // is appended without a scan; one that had ids (a retry, or another id's) is added checked.
        boolean[] fresh = new boolean[fpz.length];
        int[][] byFp = Fanout.group(fpz.length, shards.length, i -> placement.ownerOfFingerprint(fpz[i]));
        for (int s = 0; s < shards.length; s++) {
            int[] group = byFp[s];
            if (group.length > 0) {
                f.add(shards[s].attachIds(c, g, Fanout.pick(fpz, group), Fanout.pick(idz, group)), wasEmpty -> {
                    for (int i = 0; i < group.length; i++) {
                        fresh[group[i]] = wasEmpty[i];
                    }
                });
            }
        }
        f.await();
        // A fingerprint given twice in one batch is new once: the first copy decides.
        java.util.Set<Long> seen = new java.util.HashSet<>();
        long[] added = IntStream.range(0, fpz.length).filter(i -> fresh[i] && seen.add(fpz[i])).mapToLong(i -> fpz[i]).toArray();
        long[] checked = distinct(IntStream.range(0, fpz.length).filter(i -> !fresh[i]).mapToLong(i -> fpz[i])
                .filter(fp -> !seen.contains(fp)).toArray());
        if (held != null) {
            held.hold(this, c, g, added, checked, idz.length);
        } else {
            addToBuckets(c, g, added, true);
            addToBuckets(c, g, checked, false);
        }
        if (textz != null) {
            putTexts(c, g, idz, textz);
        }
    }

    private void putTexts(String c, long g, String[] ids, String[] texts) {
        int[] withText = IntStream.range(0, ids.length).filter(i -> texts[i] != null).toArray();
        Fanout f = Fanout.start();
        int[][] byId = Fanout.group(withText.length, shards.length, i -> placement.ownerOfId(ids[withText[i]]));
        for (int s = 0; s < shards.length; s++) {
            if (byId[s].length > 0) {
                int[] group = Arrays.stream(byId[s]).map(i -> withText[i]).toArray();
                f.add(shards[s].putTexts(c, g, Fanout.pick(ids, group), Fanout.pick(texts, group)));
            }
        }
        f.await();
    }

    /** For each probe, every stored document within {@code maxDistance}, nearest first, at most {@code limit} (0: all). */
    public List<List<Hit>> query(String c, Window w, long[] probes, int maxDistance, int limit) {
        return query(c, w, probes, maxDistance, limit, null);
    }

    /**
     * As {@link #query(String, Window, long[], int, int)}; probes with a short text (in
     * {@code shortTexts}) are answered by verification instead: candidates within the rule's
     * distance whose stored text is similar enough, or, with no stored text, within maxDistance.
     */
    public List<List<Hit>> query(String c, Window w, long[] probes, int maxDistance, int limit, ShortTexts shortTexts) {
        boolean verify = shortTexts != null && shortTexts.any();
        int k = verify ? Math.max(maxDistance, shortTexts.rule().candidateDistance()) : maxDistance;
        List<List<Hit>> hits = local != null ? local.candidates(c, w.live(), probes, k) : candidates(c, w, probes, k);
        if (verify) {
            hits = verify(c, w, hits, maxDistance, shortTexts);
        }
        if (limit > 0) {
            hits.replaceAll(h -> h.size() > limit ? List.copyOf(h.subList(0, limit)) : h);
        }
        return hits;
    }

    /** Keeps, for short items, the candidates whose stored text is similar enough; for the others, those within k. */
    private List<List<Hit>> verify(String c, Window w, List<List<Hit>> candidates, int k, ShortTexts st) {
        Map<String, String> stored = texts(c, w, IntStream.range(0, candidates.size()).filter(i -> st.texts()[i] != null)
                .boxed().flatMap(i -> candidates.get(i).stream().map(Hit::id)).distinct().toArray(String[]::new));
        List<List<Hit>> out = new ArrayList<>(candidates.size());
        for (int i = 0; i < candidates.size(); i++) {
            List<Hit> kept = new ArrayList<>();
            for (Hit h : candidates.get(i)) {
                String text = st.texts()[i] == null ? null : stored.get(h.id());
                if (text != null) {
                    double sim = st.rule().similarity(st.texts()[i], text);
                    if (sim >= st.rule().minJaccard()) {
                        kept.add(new Hit(h.id(), h.fingerprint(), h.distance(), sim));
                    }
                } else if (h.distance() <= k) {
                    kept.add(h);
                }
            }
            out.add(kept);
        }
        return out;
    }

    /** Stored short texts of ids, at their owners, in the window's generations. */
    private Map<String, String> texts(String c, Window w, String[] ids) {
        Map<String, String> out = new HashMap<>();
        Fanout f = Fanout.start();
        int[][] byId = Fanout.group(ids.length, shards.length, i -> placement.ownerOfId(ids[i]));
        for (int s = 0; s < shards.length; s++) {
            int[] group = byId[s];
            if (group.length > 0) {
                f.add(shards[s].getTexts(c, w.live(), Fanout.pick(ids, group)), texts -> {
                    synchronized (out) {
                        for (int i = 0; i < group.length; i++) {
                            if (texts[i] != null) {
                                out.put(ids[group[i]], texts[i]);
                            }
                        }
                    }
                });
            }
        }
        f.await();
        return out;
    }

    /** Every stored document within {@code maxDistance} of each probe, nearest first. */
    private List<List<Hit>> candidates(String c, Window w, long[] probes, int maxDistance) {
        ShardNode.Found[] matches = probe(c, w.live(), probes, maxDistance);
        Map<Long, Map<Long, String[]>> ids = resolve(c, matches);
        List<List<Hit>> out = new ArrayList<>(probes.length);
        for (int q = 0; q < probes.length; q++) {
            ShardNode.Found m = matches[q];
            if (m.fingerprints().length == 0) {
                out.add(new ArrayList<>(0)); // most probes of a dedup stream: no maps for nothing
                continue;
            }
            ProbeHits hits = new ProbeHits(probes[q]);
            for (int i = 0; i < m.fingerprints().length; i++) {
                long fp = m.fingerprints()[i];
                long g = m.generations()[i];
                for (String id : ids.getOrDefault(g, Map.of()).getOrDefault(fp, new String[0])) {
                    hits.add(id, fp, g);
                }
            }
            out.add(hits.nearestFirst());
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
    public List<Decision> dedup(String c, Window w, String[] ids, long[] fps, int maxDistance) {
        return dedup(c, w, ids, fps, maxDistance, null);
    }

    /**
     * As {@link #dedup(String, Window, String[], long[], int)}, with short-text verification for
     * the documents that have a short text: probes, locks and in-request tables then reach the
     * rule's candidate distance.
     */
    public List<Decision> dedup(String c, Window w, String[] ids, long[] fps, int maxDistance, ShortTexts shortTexts) {
        boolean verify = shortTexts != null && shortTexts.any();
        int reach = verify ? Math.max(maxDistance, shortTexts.rule().candidateDistance()) : maxDistance;
        int[] keys = bucketKeys(fps, reach);
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
                    // Marked before the call: a replica set may hold some replicas' locks when it fails.
                    locked[s] = true;
                    stamp = Math.max(stamp, Fanout.join(shards[s].lockBuckets(c, pick(keys, byShard[s]), token, LEASE_MILLIS, WAIT_MILLIS)));
                }
            }
            List<Decision> decisions = decide(c, w, ids, fps, maxDistance, verify ? shortTexts : null, stamp + 1);
            if (System.nanoTime() - started > LEASE_MILLIS / 2 * 1_000_000L) {
                // The locks may be about to expire: inserting now could race another router.
                throw Status.ABORTED.withDescription("dedup took longer than half the lock lease; retry").asRuntimeException();
            }
            int[] kept = IntStream.range(0, ids.length).filter(i -> decisions.get(i).inserted()).toArray();
            if (kept.length > 0) {
                insert(c, w, Fanout.pick(ids, kept), Fanout.pick(fps, kept), verify ? Fanout.pick(shortTexts.texts(), kept) : null);
            }
            released = stamp + ids.length;
            return decisions;
        } finally {
            unlock(c, keys, byShard, locked, token, released >= 0 ? released : stamp);
        }
    }

    /** Removes documents by id (from every generation); returns how many existed. */
    public int delete(String c, String[] ids) {
        String[] idz = Arrays.stream(ids).distinct().toArray(String[]::new);
        ShardNode.Previous previous = new ShardNode.Previous(idz.length);
        Fanout f = Fanout.start();
        int[][] byId = Fanout.group(idz.length, shards.length, i -> placement.ownerOfId(idz[i]));
        for (int s = 0; s < shards.length; s++) {
            int[] group = byId[s];
            if (group.length > 0) {
                f.add(shards[s].unbindIds(c, Fanout.pick(idz, group)), p -> scatter(p, group, previous));
            }
        }
        f.await();
        int[] found = IntStream.range(0, idz.length).filter(i -> previous.present()[i]).toArray();
        if (found.length > 0) {
            detachAndUnindex(c, Fanout.pick(previous.generation(), found), Fanout.pick(previous.previous(), found), Fanout.pick(idz, found));
        }
        return found.length;
    }

    public Stats stats(String c, Window w) {
        Fanout f = Fanout.start();
        List<CompletableFuture<ShardNode.ShardStats>> parts = new ArrayList<>();
        for (ShardClient shard : nodes) {
            parts.add(f.add(shard.stats(c, w.oldest())));
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
        // Every record is kept on `replication` nodes: counts are per copy (exact unless a move is half done).
        int r = replication;
        return new Stats(docs / r, fps / r, entries / r, tableBytes, docBytes, nodes.length);
    }

    /** Deletes every generation older than the window on every shard; returns how many were dropped. */
    public int expire(String c, Window w) {
        return sumOverNodes(node -> node.expireBefore(c, w.oldest()));
    }

    /** Creates the collection's store for {@code generation} on every node (see {@link ShardClient#prepareGeneration}); returns on how many it was new. */
    public int prepare(String c, long generation, boolean evenIfUnused) {
        return sumOverNodes(node -> node.prepareGeneration(c, generation, evenIfUnused));
    }

    /** Calls every node once, in parallel; the sum of their counts. */
    private int sumOverNodes(Function<ShardClient, CompletableFuture<Integer>> call) {
        Fanout f = Fanout.start();
        List<CompletableFuture<Integer>> parts = new ArrayList<>();
        for (ShardClient node : nodes) {
            parts.add(f.add(call.apply(node)));
        }
        f.await();
        return parts.stream().mapToInt(CompletableFuture::join).sum();
    }

    /** The content index on the same shards. */
    public ContentIndex contentIndex() {
        return new ContentIndex(List.of(shards), placement);
    }

    /** URL seen-sets on the same shards. */
    public SeenUrls seenUrls() {
        return new SeenUrls(List.of(shards), placement, List.of(nodes));
    }

    public int shardCount() {
        return nodes.length;
    }

    @Override
    public void close() {
        if (ownsShards) {
            for (ShardClient shard : shards) {
                shard.close();
            }
        }
    }

    /** The decisions for one locked batch, numbered from {@code firstSequence}. */
    private List<Decision> decide(String c, Window w, String[] ids, long[] fps, int maxDistance, ShortTexts st, long firstSequence) {
        int reach = st == null ? maxDistance : Math.max(maxDistance, st.rule().candidateDistance());
        List<List<Hit>> stored = query(c, w, fps, maxDistance, 0, st);
        BatchTables kept = new BatchTables();
        List<Decision> decisions = new ArrayList<>(ids.length);
        for (int i = 0; i < ids.length; i++) {
            List<Hit> dups = new ArrayList<>(stored.get(i));
            for (int j : kept.within(fps[i], reach, fps)) {
                int d = Hamming.distance(fps[i], fps[j]);
                if (st != null && st.texts()[i] != null && st.texts()[j] != null) {
                    double sim = st.rule().similarity(st.texts()[i], st.texts()[j]);
                    if (sim >= st.rule().minJaccard()) {
                        dups.add(new Hit(ids[j], fps[j], d, sim));
                    }
                } else if (d <= maxDistance) {
                    dups.add(new Hit(ids[j], fps[j], d));
                }
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

    /**
     * Probes all four tables of the given generations for every probe; each probe's distinct
     * (fp, generation) matches. Beyond distance 3 each table is also probed at the 16 one-bit
     * neighbours of the probe's block, with a residue threshold one lower
     * ({@link BlockTables#MAX_NEIGHBOUR_DISTANCE} says why that finds everything up to 7).
     */
    private ShardNode.Found[] probe(String c, long[] gens, long[] probes, int maxDistance) {
        int variants = variants(maxDistance);
        ShardNode.Found[][] parts = new ShardNode.Found[BlockTables.TABLES * variants][probes.length];
        Fanout f = Fanout.start();
        for (int t = 0; t < BlockTables.TABLES; t++) {
            for (int v = 0; v < variants; v++) {
                int table = t;
                int part = t * variants + v;
                long flip = flip(t, v);
                int threshold = threshold(maxDistance, v);
                long[] shifted = flip == 0 ? probes : flipped(probes, flip);
                int[][] groups = Fanout.group(probes.length, shards.length,
                        i -> placement.ownerOfBucket(table, BlockTables.block(shifted[i], table)));
                for (int s = 0; s < shards.length; s++) {
                    int[] group = groups[s];
                    if (group.length > 0) {
                        f.add(shards[s].probe(c, gens, t, Fanout.pick(shifted, group), threshold), found -> {
                            for (int i = 0; i < group.length; i++) {
                                parts[part][group[i]] = found[i];
                            }
                        });
                    }
                }
            }
        }
        f.await();
        ShardNode.Found[] out = new ShardNode.Found[probes.length];
        for (int q = 0; q < probes.length; q++) {
            int n = 0;
            for (ShardNode.Found[] part : parts) {
                n += part[q].fingerprints().length;
            }
            long[] fps = new long[n];
            long[] gs = new long[n];
            int at = 0;
            for (ShardNode.Found[] part : parts) {
                ShardNode.Found found = part[q];
                System.arraycopy(found.fingerprints(), 0, fps, at, found.fingerprints().length);
                System.arraycopy(found.generations(), 0, gs, at, found.generations().length);
                at += found.fingerprints().length;
            }
            out[q] = n <= 1 ? new ShardNode.Found(fps, gs) : distinctPairs(fps, gs);
        }
        return out;
    }

    /** How many buckets of each table a probe within {@code maxDistance} reads: its own, and beyond 3 its 16 one-bit neighbours. */
    static int variants(int maxDistance) {
        return maxDistance > BlockTables.MAX_DISTANCE ? 1 + BlockTables.BLOCK_BITS : 1;
    }

    /** What a probe is XORed with for variant v of table t: 0 for its own bucket, else bit v-1 of its block. */
    static long flip(int table, int variant) {
        return variant == 0 ? 0 : 1L << (table * BlockTables.BLOCK_BITS + variant - 1);
    }

    /** The residue threshold of variant v: a neighbour bucket's key already differs by one bit. */
    static int threshold(int maxDistance, int variant) {
        return variant == 0 ? maxDistance : maxDistance - 1;
    }

    private static long[] flipped(long[] probes, long flip) {
        long[] out = new long[probes.length];
        for (int i = 0; i < probes.length; i++) {
            out[i] = probes[i] ^ flip;
        }
        return out;
    }

    /** generation -> fingerprint -> ids, for every matched (fingerprint, generation). */
    private Map<Long, Map<Long, String[]>> resolve(String c, ShardNode.Found[] matches) {
        int n = 0;
        for (ShardNode.Found m : matches) {
            n += m.fingerprints().length;
        }
        long[] fps = new long[n];
        long[] gens = new long[n];
        int at = 0;
        for (ShardNode.Found m : matches) {
            System.arraycopy(m.fingerprints(), 0, fps, at, m.fingerprints().length);
            System.arraycopy(m.generations(), 0, gens, at, m.generations().length);
            at += m.fingerprints().length;
        }
        ShardNode.Found all = distinctPairs(fps, gens);
        Map<Long, Map<Long, String[]>> ids = new HashMap<>();
        if (all.fingerprints().length == 0) {
            return ids;
        }
        Fanout f = Fanout.start();
        int[][] groups = Fanout.group(all.fingerprints().length, shards.length, i -> placement.ownerOfFingerprint(all.fingerprints()[i]));
        for (int s = 0; s < shards.length; s++) {
            int[] group = groups[s];
            if (group.length > 0) {
                long[] partFps = Fanout.pick(all.fingerprints(), group);
                long[] partGens = Fanout.pick(all.generations(), group);
                f.add(shards[s].resolveIds(c, partGens, partFps), found -> {
                    synchronized (ids) {
                        for (int i = 0; i < partFps.length; i++) {
                            ids.computeIfAbsent(partGens[i], g -> new HashMap<>()).put(partFps[i], found[i]);
                        }
                    }
                });
            }
        }
        f.await();
        return ids;
    }

    /** Detaches ids[i] from fps[i] in gens[i]; fingerprints left without ids leave that generation's buckets. */
    private void detachAndUnindex(String c, long[] gens, long[] fps, String[] ids) {
        boolean[] empty = new boolean[fps.length];
        Fanout f = Fanout.start();
        for (long g : Arrays.stream(gens).distinct().toArray()) {
            int[] inGen = IntStream.range(0, fps.length).filter(i -> gens[i] == g).toArray();
            int[][] groups = Fanout.group(inGen.length, shards.length, i -> placement.ownerOfFingerprint(fps[inGen[i]]));
            for (int s = 0; s < shards.length; s++) {
                int[] group = Arrays.stream(groups[s]).map(i -> inGen[i]).toArray();
                if (group.length > 0) {
                    f.add(shards[s].detachIds(c, g, Fanout.pick(fps, group), Fanout.pick(ids, group)), flags -> {
                        for (int i = 0; i < group.length; i++) {
                            empty[group[i]] = flags[i];
                        }
                    });
                }
            }
        }
        f.await();
        for (long g : Arrays.stream(gens).distinct().toArray()) {
            long[] gone = distinct(IntStream.range(0, fps.length).filter(i -> empty[i] && gens[i] == g).mapToLong(i -> fps[i]).toArray());
            if (gone.length > 0) {
                buckets(c, g, gone, false);
            }
        }
    }

    private void addToBuckets(String c, long g, long[] fps, boolean newFingerprints) {
        if (fps.length > 0) {
            buckets(c, g, fps, true, newFingerprints);
        }
    }

    /**
     * Adds {@code fps[0..n)} to their buckets of generation g, each table's share ordered by
     * block first, so a shard appends each bucket's run at once (ShardNode#bucketAdd).
     */
    void addGrouped(String c, long g, long[] fps, int n, boolean newFingerprints) {
        if (n == 0) {
            return;
        }
        Fanout f = Fanout.start();
        for (int t = 0; t < BlockTables.TABLES; t++) {
            int table = t;
            toOwners(f, t, BlockTables.groupByBlock(fps, n, t), (shard, part) -> shard.bucketAdd(c, g, table, part, newFingerprints));
        }
        f.await();
    }

    /** Sends each owner of table {@code t}'s buckets its share of {@code fps}, in the given order. */
    private void toOwners(Fanout f, int t, long[] fps, java.util.function.BiFunction<ShardClient, long[], CompletableFuture<?>> call) {
        int[][] groups = Fanout.group(fps.length, shards.length, i -> placement.ownerOfBucket(t, BlockTables.block(fps[i], t)));
        for (int s = 0; s < shards.length; s++) {
            if (groups[s].length > 0) {
                f.add(call.apply(shards[s], Fanout.pick(fps, groups[s])));
            }
        }
    }

    /** Adds (or removes) each fingerprint in its four buckets of generation g, one call per (table, owner). */
    private void buckets(String c, long g, long[] fps, boolean add) {
        buckets(c, g, fps, add, false);
    }

    private void buckets(String c, long g, long[] fps, boolean add, boolean newFingerprints) {
        Fanout f = Fanout.start();
        for (int t = 0; t < BlockTables.TABLES; t++) {
            int table = t;
            toOwners(f, t, fps, (shard, part) -> add ? shard.bucketAdd(c, g, table, part, newFingerprints) : shard.bucketRemove(c, g, table, part));
        }
        f.await();
    }

    private static void scatter(ShardNode.Previous part, int[] group, ShardNode.Previous into) {
        for (int i = 0; i < group.length; i++) {
            into.present()[group[i]] = part.present()[i];
            into.previous()[group[i]] = part.previous()[i];
            into.generation()[group[i]] = part.generation()[i];
        }
    }

    /**
     * The distinct bucket keys a check-and-insert of {@code fps} within {@code reach} must lock,
     * ascending: each block's key, and beyond distance 3 its 16 one-bit neighbours too (two
     * documents within 7 have, in some table, equal or one-bit-apart keys, and each locks the
     * other's).
     */
    private static int[] bucketKeys(long[] fps, int reach) {
        int per = reach > BlockTables.MAX_DISTANCE ? 1 + BlockTables.BLOCK_BITS : 1;
        int[] keys = new int[fps.length * BlockTables.TABLES * per];
        int n = 0;
        for (long fp : fps) {
            for (int t = 0; t < BlockTables.TABLES; t++) {
                int block = BlockTables.block(fp, t);
                keys[n++] = BlockTables.bucketKey(t, block);
                for (int bit = 0; per > 1 && bit < BlockTables.BLOCK_BITS; bit++) {
                    keys[n++] = BlockTables.bucketKey(t, block ^ (1 << bit));
                }
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

    private static long[] distinct(long[] values) {
        return Arrays.stream(values).distinct().toArray();
    }

    /** Distinct (fingerprint, generation) pairs: a fingerprint equal in several blocks is found in several tables. */
    static ShardNode.Found distinctPairs(long[] fps, long[] gens) {
        int n = 0;
        long[] outF = new long[fps.length];
        long[] outG = new long[fps.length];
        if (fps.length <= SMALL_PAIRS) {
            // A probe's matches are a handful: comparing with those kept beats boxing them into maps.
            next:
            for (int i = 0; i < fps.length; i++) {
                for (int j = 0; j < n; j++) {
                    if (outF[j] == fps[i] && outG[j] == gens[i]) {
                        continue next;
                    }
                }
                outF[n] = fps[i];
                outG[n] = gens[i];
                n++;
            }
            return new ShardNode.Found(n == outF.length ? outF : Arrays.copyOf(outF, n), n == outG.length ? outG : Arrays.copyOf(outG, n));
        }
        Map<Long, List<Long>> seen = new LinkedHashMap<>();
        for (int i = 0; i < fps.length; i++) {
            List<Long> gs = seen.computeIfAbsent(fps[i], k -> new ArrayList<>(1));
            if (!gs.contains(gens[i])) {
                gs.add(gens[i]);
                outF[n] = fps[i];
                outG[n] = gens[i];
                n++;
            }
        }
        return new ShardNode.Found(Arrays.copyOf(outF, n), Arrays.copyOf(outG, n));
    }

    /** Indexes of the last occurrence of each distinct id, in order of those occurrences. */
    private static int[] lastOccurrences(String[] ids) {
        Map<String, Integer> last = new LinkedHashMap<>();
        for (int i = 0; i < ids.length; i++) {
            last.remove(ids[i]);
            last.put(ids[i], i);
        }
        if (last.size() == ids.length) {
            return IntStream.range(0, ids.length).toArray();
        }
        return last.values().stream().mapToInt(Integer::intValue).toArray();
    }
}
