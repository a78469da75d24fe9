package io.simdex.router.index;

import io.grpc.Context;
import io.grpc.Status;
import io.simdex.core.text.MinHashSketch;
import io.simdex.fingerprint.BlockTables;
import io.simdex.fingerprint.Hamming;
import io.simdex.router.crawl.ContentIndex;
import io.simdex.router.crawl.SeenUrls;
import io.simdex.router.shard.Bound;
import io.simdex.router.shard.ExportIdsPage;
import io.simdex.router.shard.Fanout;
import io.simdex.router.shard.NodeReads;
import io.simdex.router.shard.Placement;
import io.simdex.router.shard.Previous;
import io.simdex.router.shard.ShardClient;
import io.simdex.router.shard.WriteBatch;
import io.simdex.server.store.FingerprintSketch;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.ToIntFunction;
import java.util.stream.IntStream;

import static io.simdex.router.shard.Fanout.pick;

/**
 * The index across shards: what Insert, Query, Dedup and Delete do, in terms of the shard
 * protocol. Arguments are validated by the caller ({@code SimdexService}).
 *
 * <h2>Where things live</h2>
 * A document (id, fp) of generation g is recorded three ways, each at the shard
 * {@link Placement} names: id -> fp at the owner of the id, fp -> ids at the owner of fp, and
 * fp in the four buckets (t, block t of fp) at each bucket's owner. A query probes the four
 * buckets of every live generation, then resolves the matched fingerprints' ids; buckets never
 * carry ids, which keeps them at 6 bytes an entry. A text's sketch is kept for its fingerprint,
 * at the owner of the fingerprint's text key ({@code FingerprintSketch.key}), so a candidate is
 * judged before its ids are resolved. An id lives in one generation: binding it
 * in a new one unbinds it from the others (all on the id's owner).
 *
 * <h2>Order of writes</h2>
 * Insert binds ids first, moves re-bound ids off their old fingerprints, then attaches ids and
 * adds bucket entries; delete undoes in reverse. A fingerprint in a bucket without ids is
 * invisible (queries drop it), so a write cut short leaves nothing wrong to see, and every step
 * is idempotent, so retrying the request completes it.
 */
public final class IndexRouter implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(IndexRouter.class);
    /**
     * How long a Dedup's bucket locks last on the shards unless configured otherwise: a router
     * that dies holding them blocks Dedups near its documents (on every router) that long.
     */
    public static final int DEFAULT_DEDUP_LEASE_MILLIS = DedupLocks.DEFAULT_LEASE_MILLIS;
    /** The shortest lease allowed: a Dedup that takes longer than half its lease fails with ABORTED. */
    public static final int MIN_DEDUP_LEASE_MILLIS = 1_000;

    private final ShardClient[] shards;
    private final Placement placement;
    private final ShardClient[] nodes;
    private final int replication;
    private final boolean ownsShards;
    private final int dedupLeaseMillis;
    /** Queries without the fan-out, when every shard answers in the caller's thread; else null. */
    private final LocalQuery local;
    private final FanoutQuery fanout;
    private final TextVerification verification;

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
        this(shards, placement, nodes, replication, ownsShards, null);
    }

    /** As above, with queries read node by node ({@link NodeReads}) when {@code nodeReads} is not null. */
    public IndexRouter(List<? extends ShardClient> shards, Placement placement, List<? extends ShardClient> nodes, int replication,
            boolean ownsShards, NodeReads nodeReads) {
        this(shards, placement, nodes, replication, ownsShards, nodeReads, DEFAULT_DEDUP_LEASE_MILLIS);
    }

    /** As above, with Dedup's bucket locks leased for {@code dedupLeaseMillis} ({@link #MIN_DEDUP_LEASE_MILLIS} or more). */
    public IndexRouter(List<? extends ShardClient> shards, Placement placement, List<? extends ShardClient> nodes, int replication,
            boolean ownsShards, NodeReads nodeReads, int dedupLeaseMillis) {
        if (placement.shards() != shards.size()) {
            throw new IllegalArgumentException(placement.shards() + " shards placed but " + shards.size() + " given");
        }
        if (dedupLeaseMillis < MIN_DEDUP_LEASE_MILLIS) {
            throw new IllegalArgumentException("a Dedup lock lease of " + dedupLeaseMillis + " ms is under " + MIN_DEDUP_LEASE_MILLIS);
        }
        this.shards = shards.toArray(new ShardClient[0]);
        this.placement = placement;
        this.nodes = nodes.toArray(new ShardClient[0]);
        this.replication = replication;
        this.ownsShards = ownsShards;
        this.dedupLeaseMillis = dedupLeaseMillis;
        this.local = LocalQuery.over(this.shards, placement);
        this.fanout = new FanoutQuery(this.shards, placement, nodeReads);
        this.verification = new TextVerification(this.shards, placement);
    }

    /** Whether queries skip the fan-out (every shard answers in the caller's thread). */
    boolean queriesInCallingThread() {
        return local != null;
    }

    /** A stored document near a probe; {@code similarity} is its verified (shingle or sketch) Jaccard, or -1 when not verified. */
    public record Hit(String id, long fingerprint, int distance, double similarity) {
        static final Comparator<Hit> NEAREST_FIRST = Comparator.comparingInt(Hit::distance).thenComparing(Hit::id);

        public Hit(String id, long fingerprint, int distance) {
            this(id, fingerprint, distance, -1);
        }
    }

    /**
     * What a request's texts are verified by: the collection's short-text rule and each item's
     * normalised text where it is short (else null), and each text item's sketch and the sketch
     * rule its candidates are judged by (else null). A rule that is off is null, and so are its
     * items. {@code second} holds the second probes of texts that probe with two fingerprints
     * ({@link ShortFingerprintRule}).
     */
    public record TextChecks(ShortTextRule shortRule, String[] texts, SketchRule[] sketchRules, MinHashSketch[] sketches,
                             SecondProbes second) {
        /** Short-text verification only. */
        public TextChecks(ShortTextRule shortRule, String[] texts) {
            this(shortRule, texts, null, new MinHashSketch[texts.length]);
        }

        /** One sketch rule for every item with a sketch, no second probes. */
        public TextChecks(ShortTextRule shortRule, String[] texts, SketchRule sketchRule, MinHashSketch[] sketches) {
            this(shortRule, texts, rules(sketchRule, sketches), sketches, SecondProbes.NONE);
        }

        private static SketchRule[] rules(SketchRule rule, MinHashSketch[] sketches) {
            SketchRule[] out = new SketchRule[sketches.length];
            for (int i = 0; i < out.length; i++) {
                out[i] = sketches[i] != null ? rule : null;
            }
            return out;
        }

        boolean any() {
            return IntStream.range(0, texts.length).anyMatch(this::verifies);
        }

        boolean verifies(int i) {
            return texts[i] != null || sketches[i] != null;
        }

        MinHashSketch sketch(int i) {
            return sketches[i];
        }

        /** The rule item i's candidates are judged by, null if it has no sketch. */
        SketchRule sketchRule(int i) {
            return sketchRules[i];
        }

        /** The distance candidates are needed from: the widest of the rules in use, at least k. */
        int reach(int k) {
            return widest(k, SketchRule::candidateDistance);
        }

        /** The distance item i's candidates are needed from, at least k. */
        int reach(int i, int k) {
            return ofItem(i, k, SketchRule::candidateDistance);
        }

        /** The distance whose buckets the probes read: as {@link #reach(int)}, by each rule's bucket distance. */
        int buckets(int k) {
            return widest(k, SketchRule::bucketDistance);
        }

        /** The distance whose buckets item i's probe reads, at least k. */
        int buckets(int i, int k) {
            return ofItem(i, k, SketchRule::bucketDistance);
        }

        /** The widest {@code distance} of the items' rules and the second probes' rules, at least k. */
        private int widest(int k, ToIntFunction<SketchRule> distance) {
            int r = k;
            for (int i = 0; i < texts.length; i++) {
                r = Math.max(r, ofItem(i, k, distance));
            }
            for (SketchRule rule : second.rules()) {
                r = Math.max(r, distance.applyAsInt(rule));
            }
            return r;
        }

        /** Item i's {@code distance} of its sketch rule, at least k and the short-text rule's where it has a short text. */
        private int ofItem(int i, int k, ToIntFunction<SketchRule> distance) {
            int r = Math.max(k, texts[i] != null ? shortRule.candidateDistance() : 0);
            return Math.max(r, sketchRules[i] != null ? distance.applyAsInt(sketchRules[i]) : 0);
        }

        /** The checks of {@code items} alone (no second probes). */
        TextChecks pick(int[] items) {
            return new TextChecks(shortRule, Fanout.pick(texts, items), Fanout.pick(sketchRules, items), Fanout.pick(sketches, items),
                    SecondProbes.NONE);
        }

        /** What the text store keeps for each item: its short text, else its sketch's stored form, else null. */
        public String[] stored() {
            String[] out = new String[texts.length];
            for (int i = 0; i < out.length; i++) {
                out[i] = texts[i] != null ? texts[i] : sketches[i] != null ? SketchRule.stored(sketches[i]) : null;
            }
            return out;
        }

        /** The checks of items {@code from..to-1}, numbered from 0, with their second probes. */
        TextChecks slice(int from, int to) {
            int[] kept = IntStream.range(0, second.items().length)
                    .filter(j -> second.items()[j] >= from && second.items()[j] < to).toArray();
            int[] items = new int[kept.length];
            for (int j = 0; j < kept.length; j++) {
                items[j] = second.items()[kept[j]] - from;
            }
            return new TextChecks(shortRule, Arrays.copyOfRange(texts, from, to), Arrays.copyOfRange(sketchRules, from, to),
                    Arrays.copyOfRange(sketches, from, to),
                    new SecondProbes(items, Fanout.pick(second.fps(), kept), Fanout.pick(second.rules(), kept)));
        }

        /** {@code probes} followed by the second probes. */
        long[] withSecondProbes(long[] probes) {
            long[] out = Arrays.copyOf(probes, probes.length + second.items().length);
            System.arraycopy(second.fps(), 0, out, probes.length, second.items().length);
            return out;
        }

        /** These checks with each second probe an item of its own after the request's (as {@link #withSecondProbes}), and none left. */
        TextChecks withSecondItems() {
            int n = texts.length;
            int[] items = second.items();
            String[] t = Arrays.copyOf(texts, n + items.length);
            SketchRule[] r = Arrays.copyOf(sketchRules, n + items.length);
            MinHashSketch[] s = Arrays.copyOf(sketches, n + items.length);
            for (int j = 0; j < items.length; j++) {
                t[n + j] = texts[items[j]];
                r[n + j] = second.rules()[j];
                s[n + j] = sketches[items[j]];
            }
            return new TextChecks(shortRule, t, r, s, SecondProbes.NONE);
        }

        /**
         * The answers of {@link #withSecondItems} folded back to one per request item: an item's
         * matches and its second probe's, an id once (at its nearer distance), nearest first, at
         * most {@code limit} (0: all); the totals add up, less the ids both found.
         */
        List<Nearest> foldSecondAnswers(List<Nearest> answers, int limit) {
            List<Nearest> out = new ArrayList<>(answers.subList(0, texts.length));
            for (int j = 0; j < second.items().length; j++) {
                Nearest extra = answers.get(texts.length + j);
                if (extra.hits().isEmpty()) {
                    continue;
                }
                int i = second.items()[j];
                Map<String, Hit> byId = new HashMap<>();
                for (Hit h : out.get(i).hits()) {
                    byId.put(h.id(), h);
                }
                long both = 0;
                for (Hit h : extra.hits()) {
                    Hit was = byId.putIfAbsent(h.id(), h);
                    if (was != null) {
                        both++;
                        if (Hit.NEAREST_FIRST.compare(h, was) < 0) {
                            byId.put(h.id(), h);
                        }
                    }
                }
                List<Hit> hits = new ArrayList<>(byId.values());
                hits.sort(Hit.NEAREST_FIRST);
                out.set(i, new Nearest(limit > 0 && hits.size() > limit ? List.copyOf(hits.subList(0, limit)) : hits,
                        out.get(i).total() + extra.total() - both));
            }
            return out;
        }
    }

    /**
     * Second probes of a request's text items: item {@code items[j]} also probes with
     * {@code fps[j]}, whose candidates {@code rules[j]} judges by the item's sketch.
     */
    public record SecondProbes(int[] items, long[] fps, SketchRule[] rules) {
        public static final SecondProbes NONE = new SecondProbes(new int[0], new long[0], new SketchRule[0]);
    }

    /**
     * One probe's answer: its matches, nearest first (then by id), at most the limit asked for,
     * and how many stored documents match in all.
     */
    public record Nearest(List<Hit> hits, long total) {
        static final Nearest NONE = new Nearest(List.of(), 0);
    }

    /**
     * Dedup's decision for one document: inserted (or found stored already under its own id and
     * fingerprint), or the documents it duplicates, at most the limit of them, and how many there
     * are; its place in the serial order.
     */
    public record Decision(boolean inserted, List<Hit> duplicates, long total, long sequence) {
    }

    /** Counts of a collection's live generations across all shards. */
    public record Stats(long documents, long fingerprints, long bucketEntries, long tableBytes, long docBytes, int shards) {
    }

    /** Stores each (ids[i], fps[i]) in the window's current generation; an id given twice keeps its last fingerprint. */
    public void insert(String c, Window w, String[] ids, long[] fps) {
        insert(c, w, ids, fps, null);
    }

    /**
     * As {@link #insert(String, Window, String[], long[])}, also storing the non-null
     * {@code stored[i]} for verification (short texts, or sketches: {@link TextChecks#stored()}).
     */
    public void insert(String c, Window w, String[] ids, long[] fps, String[] stored) {
        insert(c, w, ids, fps, stored, null);
    }

    /**
     * As {@link #insert(String, Window, String[], long[], String[])}; with {@code held} non-null
     * (a bulk load) the bucket appends are held there and applied a window at a time.
     */
    public void insert(String c, Window w, String[] ids, long[] fps, String[] stored, BulkAppends held) {
        insert(c, w, ids, fps, stored, held, true);
    }

    /**
     * As {@link #insert(String, Window, String[], long[], String[], BulkAppends)}; {@code sketches}
     * false for a collection that keeps no sketches by fingerprint, whose rebound ids' old
     * fingerprints then have none to drop (two round trips saved).
     */
    public void insert(String c, Window w, String[] ids, long[] fps, String[] stored, BulkAppends held, boolean sketches) {
        int[] last = BatchKeys.lastOccurrences(ids);
        String[] idz = pick(ids, last);
        long[] fpz = pick(fps, last);
        String[] textz = stored == null ? null : pick(stored, last);
        String[] keptz = textz == null ? null : SketchRule.keptByFingerprint(textz);
        long g = w.current();

        // 1. id -> fp, learning what each id was bound to before (in any generation), and
        // 2. fp -> ids, learning which fingerprints had no ids. Their keys are disjoint, so both
        // go out at once: one round trip to the nodes, not two. What verifies the documents is
        // stored before step 4 adds them to the buckets, where probes find them, so no probe
        // meets a document without it (stored after the buckets, a Query in between, or a crash
        // there, judged the document by distance alone), and after steps 1 and 2: texts and
        // sketches kept by id follow the binding, which removes an id's old one, and a sketch
        // kept by fingerprint follows the attach, which a Delete that drops the sketch of a
        // fingerprint it left without documents looks for once it has dropped it
        // (dropSketchesOfEmpty).
        Previous previous = new Previous(idz.length);
        boolean[] fresh = new boolean[fpz.length];
        Fanout f = Fanout.start();
        try (WriteBatch batch = WriteBatch.open()) { // each kind: one call per node, whatever replica sets it serves
            f.toOwners(shards, idz.length, i -> placement.ownerOfId(idz[i]),
                    (shard, group) -> shard.bindIds(c, g, pick(idz, group), pick(fpz, group)), (group, p) -> scatter(p, group, previous));
            f.toOwners(shards, fpz.length, i -> placement.ownerOfFingerprint(fpz[i]),
                    (shard, group) -> shard.attachIds(c, g, pick(fpz, group), pick(idz, group)), (group, wasEmpty) -> scatter(wasEmpty, group, fresh));
        }
        f.await();
        if (textz != null) {
            Fanout verifiedBy = Fanout.start();
            try (WriteBatch batch = WriteBatch.open()) {
                putTexts(verifiedBy, c, g, idz, fpz, textz, keptz, true);
                putTexts(verifiedBy, c, g, idz, fpz, textz, keptz, false);
            }
            verifiedBy.await();
        }
        // 3. Ids that moved leave their old fingerprints. An old fingerprint is another key
        // than the new one (or the same in another generation's store), so this may follow the
        // attach: the old one loses its last id, and leaves the buckets, only if no id of this
        // batch was attached to it.
        int[] moved = IntStream.range(0, idz.length)
                .filter(i -> previous.present()[i] && (previous.previous()[i] != fpz[i] || previous.generation()[i] != g)).toArray();
        if (moved.length > 0) {
            if (held != null) {
                // A held append of an old fingerprint must land before its removal, or outlive it.
                held.apply(this);
            }
            detachAndUnindex(c, pick(previous.generation(), moved), pick(previous.previous(), moved), pick(idz, moved), sketches);
        }
        // 4. The buckets. Bucket adds are always sent, so a retry after a failure before them
        // completes the insert: a fingerprint that had no ids is new and is appended without a
        // scan; one that had ids (a retry, or another id's) is added checked.
        // A fingerprint given twice in one batch is new once: the first copy decides.
        BatchKeys.Fingerprints seen = new BatchKeys.Fingerprints(fpz.length);
        long[] added = IntStream.range(0, fpz.length).filter(i -> fresh[i] && seen.add(fpz[i])).mapToLong(i -> fpz[i]).toArray();
        long[] checked = BatchKeys.distinct(IntStream.range(0, fpz.length).filter(i -> !fresh[i]).mapToLong(i -> fpz[i])
                .filter(fp -> !seen.contains(fp)).toArray());
        if (held != null) {
            held.hold(this, c, g, added, checked, idz.length);
        } else {
            // New ones first on each shard: a checked add of the same bucket then sees them.
            bucketAdds(c, g, new long[][]{added, checked}, new boolean[]{true, false});
        }
    }

    /**
     * Sends, in {@code f}, the sketches kept by fingerprint ({@code byFingerprint}: kept[i] under
     * fps[i]) or the texts that have no such form (texts[i] under ids[i]).
     */
    private void putTexts(Fanout f, String c, long g, String[] ids, long[] fps, String[] texts, String[] kept, boolean byFingerprint) {
        int[] withText = IntStream.range(0, ids.length).filter(i -> texts[i] != null && (kept[i] != null) == byFingerprint).toArray();
        String[] idz = new String[withText.length];
        String[] textz = new String[withText.length];
        for (int j = 0; j < withText.length; j++) {
            int i = withText[j];
            idz[j] = byFingerprint ? FingerprintSketch.key(fps[i]) : ids[i];
            textz[j] = byFingerprint ? kept[i] : texts[i];
        }
        f.toOwners(shards, idz.length, i -> placement.ownerOfId(idz[i]), (shard, group) -> shard.putTexts(c, g, pick(idz, group), pick(textz, group)));
    }

    /** For each probe, the stored documents within {@code maxDistance}: nearest first, at most {@code limit} (0: all), and their count. */
    public List<Nearest> query(String c, Window w, long[] probes, int maxDistance, int limit) {
        return query(c, w, probes, maxDistance, limit, null);
    }

    /**
     * As {@link #query(String, Window, long[], int, int)}; probes with a short text or a sketch
     * (in {@code checks}) are answered by verification instead: candidates within the rule's
     * distance whose stored text or sketch is similar enough, or, with nothing stored, within
     * maxDistance.
     */
    public List<Nearest> query(String c, Window w, long[] probes, int maxDistance, int limit, TextChecks checks) {
        if (checks != null && checks.second().items().length > 0) {
            List<Nearest> all = query(c, w, checks.withSecondProbes(probes), maxDistance, limit, checks.withSecondItems());
            return checks.foldSecondAnswers(all, limit);
        }
        boolean verify = checks != null && checks.any();
        if (verify) {
            // Probes are asked together when they need candidates from the same distance in the same buckets.
            int[] reach = IntStream.range(0, probes.length)
                    .map(i -> checks.reach(i, maxDistance) * REACH_KEYS + checks.buckets(i, maxDistance)).toArray();
            if (Arrays.stream(reach).distinct().count() > 1) {
                return byReach(c, w, probes, maxDistance, limit, checks, reach);
            }
        }
        int k = verify ? checks.reach(maxDistance) : maxDistance;
        int buckets = verify ? checks.buckets(maxDistance) : maxDistance;
        // Each matched fingerprint needs at most `limit` ids: the nearest `limit` of a probe are among them.
        List<Candidates> found = local != null ? local.candidates(c, w.live(), probes, k, buckets, limit, verify ? checks : null)
                : fanout.candidates(c, w.live(), probes, k, buckets, limit, verify ? checks::verifies : null);
        return nearest(c, w, found, maxDistance, limit, verify ? checks : null);
    }

    /** More than any distance a probe asks for ({@link BlockTables#MAX_CANDIDATE_DISTANCE}): byReach's key is reach * REACH_KEYS + buckets. */
    private static final int REACH_KEYS = 64;

    /**
     * The query of items whose rules need candidates from different distances, or read
     * different buckets, one call per key of both ({@code reach}): a wide radius (a short text's
     * MinHash probe) does not widen the others', nor a narrow second probe narrow them.
     */
    private List<Nearest> byReach(String c, Window w, long[] probes, int maxDistance, int limit, TextChecks checks, int[] reach) {
        Nearest[] out = new Nearest[probes.length];
        for (int r : Arrays.stream(reach).distinct().toArray()) {
            int[] items = IntStream.range(0, probes.length).filter(i -> reach[i] == r).toArray();
            List<Nearest> part = query(c, w, pick(probes, items), maxDistance, limit, checks.pick(items));
            for (int j = 0; j < items.length; j++) {
                out[items[j]] = part.get(j);
            }
        }
        return Arrays.asList(out);
    }

    /**
     * As {@link #query(String, Window, long[], int, int, TextChecks)}, without blocking the
     * caller on remote shards: their answers complete it, on a gRPC transport thread. Shards that
     * answer in the caller's thread, and probes that need verification (it reads stored texts and
     * sketches), are answered before it returns.
     */
    public CompletableFuture<List<Nearest>> queryAsync(String c, Window w, long[] probes, int maxDistance, int limit, TextChecks checks) {
        if (local != null || (checks != null && checks.any())) {
            return CompletableFuture.completedFuture(query(c, w, probes, maxDistance, limit, checks));
        }
        return fanout.candidatesAsync(c, w.live(), probes, maxDistance, limit).thenApply(found -> nearest(c, w, found, maxDistance, limit, null));
    }

    /** Candidates to answers: verified when {@code checks} is given, else those within maxDistance; at most {@code limit} of each. */
    private List<Nearest> nearest(String c, Window w, List<Candidates> found, int maxDistance, int limit, TextChecks checks) {
        boolean verify = checks != null;
        List<Nearest> out;
        if (verify) {
            out = verification.verify(c, w, found, maxDistance, checks, local != null);
        } else {
            out = new ArrayList<>(found.size());
            for (Candidates cs : found) {
                out.add(cs.hits().isEmpty() ? Nearest.NONE : new Nearest(cs.hits(), cs.within(maxDistance)));
            }
        }
        if (limit > 0) {
            out.replaceAll(n -> n.hits().size() > limit ? new Nearest(List.copyOf(n.hits().subList(0, limit)), n.total()) : n);
        }
        return out;
    }

    /**
     * Check-and-insert in request order: a document is stored only if no stored document and no
     * document kept earlier in this request lies within {@code maxDistance}.
     *
     * <p>Race-free across routers: the call holds, on the owning shards, the locks of every
     * bucket key of its documents ({@link DedupLocks}) from before its probe until after its
     * insert.
     */
    public List<Decision> dedup(String c, Window w, String[] ids, long[] fps, int maxDistance) {
        return dedup(c, w, ids, fps, maxDistance, 0, null);
    }

    /**
     * As {@link #dedup(String, Window, String[], long[], int)}, reporting at most {@code limit}
     * duplicates of each document (0: all), with verification for the documents that have a
     * short text or a sketch: probes, locks and in-request tables then reach the rules'
     * candidate distance.
     */
    public List<Decision> dedup(String c, Window w, String[] ids, long[] fps, int maxDistance, int limit, TextChecks checks) {
        boolean verify = checks != null && checks.any();
        if (local == null || ids.length <= LOCK_GROUP || BatchKeys.lastOccurrences(ids).length < ids.length) {
            return dedupLocked(c, w, ids, fps, maxDistance, limit, verify ? checks : null);
        }
        List<Decision> out = new ArrayList<>(ids.length);
        for (int from = 0; from < ids.length; from += LOCK_GROUP) {
            if (Context.current().isCancelled()) {
                // The caller is gone (its deadline passed, or it disconnected): the groups left
                // are not decided, as if the request had been cut short there.
                throw Status.CANCELLED.withDescription("dedup cancelled by its caller after " + from + " of " + ids.length
                        + " documents were decided and stored").asRuntimeException();
            }
            int to = Math.min(ids.length, from + LOCK_GROUP);
            TextChecks group = verify ? checks.slice(from, to) : null;
            out.addAll(dedupLocked(c, w, Arrays.copyOfRange(ids, from, to), Arrays.copyOfRange(fps, from, to), maxDistance, limit,
                    group != null && group.any() ? group : null));
        }
        return out;
    }

    /**
     * Documents a Dedup decides under one set of bucket locks when every shard is in this
     * JVM. A larger request is decided a group at a time, each locked, probed, stored and
     * unlocked before the next, so that concurrent requests wait for one group of another, not
     * for its whole batch: two requests of 1,000 fingerprints lock 4,000 of a collection's
     * 262,144 bucket keys each and share about 60 of them, so requests locked whole run one
     * after the other (batched Dedup at 10M: 58K documents/s with one client, 65K with two, 66K
     * with four; in groups, 101-116K with two). Groups of 64 share a key a fifth of the time.
     * A group sees the groups before it as stored documents, so each document is decided as in
     * the whole request (a text is judged against the request's earlier texts by what the store
     * keeps of them), but for one repeated with its own id (stored already, where the whole
     * request finds a duplicate of itself): requests that repeat an id are decided whole.
     * Texts whose candidates reach beyond distance 3 lock five keys a block (DedupLocks), so two
     * groups of them nearly always share one; still, with two callers of 100 20-word texts each
     * (DedupTextBenchmark -t 2) groups gave 23.7K texts/s where whole requests gave 20.3K, and
     * groups of 12 (as many keys as 64 fingerprints) no more than groups of 64.
     * Over remote shards a group pays the round trips of a request (locks, probe, writes,
     * unlock): on a 3-node cluster of one 2-core machine, groups cut Dedup of 1,000 from 19.3K
     * to 2.6K documents/s with one call in flight and from 29.7K to 12.0K with four, so a
     * request is decided whole there.
     */
    static final int LOCK_GROUP = 64;

    /** {@link #dedup} of documents decided under one set of locks; {@code checks} null or with something to verify. */
    private List<Decision> dedupLocked(String c, Window w, String[] ids, long[] fps, int maxDistance, int limit, TextChecks checks) {
        boolean verify = checks != null;
        int reach = verify ? checks.reach(maxDistance) : maxDistance;
        // A text that probes with two fingerprints locks the buckets of both.
        long[] probes = verify ? checks.withSecondProbes(fps) : fps;
        // What the store keeps for each text: judged by in the request, then stored.
        String[] stored = verify ? checks.stored() : null;
        try (DedupLocks locks = DedupLocks.acquire(shards, placement, c, probes, reach, dedupLeaseMillis)) {
            DedupLocks.CutShort cut = locks.cutShort();
            if (cut != null) {
                // Documents calls cut short had decided under these keys: stored first, as those calls would have.
                DedupIntents.Batch store = cut.store();
                if (store.ids().length > 0) {
                    insert(c, w, store.ids(), store.fps(), store.stored());
                }
                locks.settled(nodes);
                CutShortDedups.completed(cut.calls(), store.ids().length, cut.dropped());
                LOG.warn("Dedup on {} found {} Dedup calls cut short: stored {} documents they had decided to keep, dropped {} they"
                        + " had not left on every shard of their keys (nothing of those was written)", c, cut.calls(), store.ids().length,
                        cut.dropped());
            }
            List<Decision> decisions = decide(c, w, ids, fps, maxDistance, limit, checks, stored, locks.stamp() + 1);
            locks.checkLease();
            int[] kept = IntStream.range(0, ids.length).filter(i -> decisions.get(i).inserted()).toArray();
            if (kept.length > 0) {
                locks.intend(ids.length, ids, fps, verify ? stored : null, kept, reach);
                insert(c, w, pick(ids, kept), pick(fps, kept), verify ? pick(stored, kept) : null, null, verify);
            }
            locks.decided(ids.length);
            return decisions;
        }
    }

    /** Removes documents by id (from every generation); returns how many existed. */
    public int delete(String c, String[] ids) {
        return delete(c, ids, true);
    }

    /**
     * As {@link #delete(String, String[])}; {@code sketches} false for a collection that keeps no
     * sketches by fingerprint (two round trips saved).
     */
    public int delete(String c, String[] ids, boolean sketches) {
        String[] idz = Arrays.stream(ids).distinct().toArray(String[]::new);
        Previous previous = new Previous(idz.length);
        Fanout f = Fanout.start();
        f.toOwners(shards, idz.length, i -> placement.ownerOfId(idz[i]), (shard, group) -> shard.unbindIds(c, pick(idz, group)),
                (group, p) -> scatter(p, group, previous));
        f.await();
        int[] found = IntStream.range(0, idz.length).filter(i -> previous.present()[i]).toArray();
        if (found.length > 0) {
            detachAndUnindex(c, pick(previous.generation(), found), pick(previous.previous(), found), pick(idz, found), sketches);
        }
        return found.length;
    }

    /** The fingerprint each of {@code ids} is bound to in the window's newest generation that binds it. */
    public Bound lookup(String c, Window w, String[] ids) {
        Bound all = new Bound(new boolean[ids.length], new long[ids.length]);
        Fanout f = Fanout.start();
        f.toOwners(shards, ids.length, i -> placement.ownerOfId(ids[i]), (shard, group) -> shard.lookupIds(c, w.live(), pick(ids, group)),
                (group, part) -> {
                    for (int i = 0; i < group.length; i++) {
                        all.found()[group[i]] = part.found()[i];
                        all.fingerprints()[group[i]] = part.fingerprints()[i];
                    }
                });
        f.await();
        return all;
    }

    /** A page of an export and the cursor of the next, null when it is the last. */
    public record ExportedPage(String[] ids, long[] fingerprints, ExportCursor next) {
    }

    /**
     * The page of collection {@code c}'s bindings in window {@code w} that begins at {@code from}
     * (null: the first), of at most {@code limit} documents (more only when one store segment
     * holds more). Groups are read in order, each from one node, the one a read would ask first
     * when its first page is read: a page ends with its group's call unless it found nothing, so
     * each page is one node's answer. A cursor given under another placement, or whose node no
     * longer serves its group, is refused with ABORTED: positions are one node's own.
     */
    public ExportedPage export(String c, Window w, ExportCursor from, int limit) {
        long signature = placement.signature();
        if (from != null && from.placement() != signature) {
            throw Status.ABORTED.withDescription("partitions moved since the export began: start it again without a cursor").asRuntimeException();
        }
        int group = from == null ? 0 : from.group();
        if (group >= shards.length) {
            throw Status.ABORTED.withDescription("the cursor names shard group " + group + " of " + shards.length + ": start the export again")
                    .asRuntimeException();
        }
        int node = from == null ? shards[0].readNode() : from.node();
        long generation = from == null ? 0 : from.generation();
        int mapGeneration = from == null ? 0 : from.mapGeneration();
        int segment = from == null ? 0 : from.segment();
        while (true) {
            ShardClient replica = shards[group].onNode(node);
            if (replica == null) {
                throw Status.ABORTED.withDescription("node " + node + ", which this export was reading shard group " + group
                        + " from, no longer serves it: start the export again").asRuntimeException();
            }
            ExportIdsPage page = Fanout.join(replica.exportIds(c, w.live(), placement.partitionBitmap(group), generation, mapGeneration, segment, limit));
            if (!page.done()) {
                return new ExportedPage(page.ids(), page.fingerprints(),
                        new ExportCursor(signature, c, group, node, page.generation(), page.mapGeneration(), page.segment()));
            }
            group++;
            if (group == shards.length) {
                return new ExportedPage(page.ids(), page.fingerprints(), null);
            }
            node = shards[group].readNode();
            generation = 0;
            mapGeneration = 0;
            segment = 0;
            if (page.ids().length > 0) {
                return new ExportedPage(page.ids(), page.fingerprints(), new ExportCursor(signature, c, group, node, 0, 0, 0));
            }
        }
    }

    public Stats stats(String c, Window w) {
        long[] sum = new long[5];
        Fanout f = Fanout.start();
        f.toEach(nodes, node -> node.stats(c, w.oldest()), s -> {
            sum[0] += s.documents();
            sum[1] += s.fingerprints();
            sum[2] += s.bucketEntries();
            sum[3] += s.tableBytes();
            sum[4] += s.docBytes();
        });
        f.await();
        // Every record is kept on `replication` nodes: counts are per copy (exact unless a move is half done).
        int r = replication;
        return new Stats(sum[0] / r, sum[1] / r, sum[2] / r, sum[3], sum[4], nodes.length);
    }

    /** Deletes every generation older than the window on every shard; returns how many were dropped. */
    public int expire(String c, Window w) {
        return sumOverNodes(node -> node.expireBefore(c, w.oldest()));
    }

    /** Deletes every generation of the collection on every shard (DeleteCollection); returns how many were dropped. */
    public int dropAll(String c) {
        return sumOverNodes(node -> node.expireBefore(c, Long.MAX_VALUE));
    }

    /** Creates the collection's store for {@code generation} on every node (see {@link ShardClient#prepareGeneration}); returns on how many it was new. */
    public int prepare(String c, long generation, boolean evenIfUnused) {
        return sumOverNodes(node -> node.prepareGeneration(c, generation, evenIfUnused));
    }

    /** Calls every node once, in parallel; the sum of their counts. */
    private int sumOverNodes(Function<ShardClient, CompletableFuture<Integer>> call) {
        int[] sum = {0};
        Fanout f = Fanout.start();
        f.toEach(nodes, call, n -> sum[0] += n);
        f.await();
        return sum[0];
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

    /** The decisions for one locked batch, numbered from {@code firstSequence}; {@code stored}: {@code st.stored()}. */
    private List<Decision> decide(String c, Window w, String[] ids, long[] fps, int maxDistance, int limit, TextChecks st,
                                  String[] stored, long firstSequence) {
        int reach = st == null ? maxDistance : st.reach(maxDistance);
        String[] storedKept = st == null ? null : SketchRule.keptByFingerprint(stored);
        List<Nearest> found = query(c, w, fps, maxDistance, limit, st);
        BatchTables kept = new BatchTables();
        List<Decision> decisions = new ArrayList<>(ids.length);
        for (int i = 0; i < ids.length; i++) {
            if (storedAlready(found.get(i), ids[i], fps[i])) {
                // A retry of a Dedup that stored this document: it stays stored (inserting it
                // again completes an insert the first attempt may have cut short).
                kept.add(i, fps[i]);
                decisions.add(new Decision(true, List.of(), 0, firstSequence + i));
                continue;
            }
            List<Hit> dups = new ArrayList<>(found.get(i).hits());
            long total = found.get(i).total();
            total += keptDuplicates(st, i, fps[i], st == null ? null : st.sketchRule(i), false, ids, fps, stored, storedKept, kept, reach,
                    st == null ? reach : st.buckets(i, maxDistance), maxDistance, dups);
            SecondProbes second = st == null ? SecondProbes.NONE : st.second();
            for (int s = 0; s < second.items().length; s++) {
                if (second.items()[s] == i) {
                    total += keptDuplicates(st, i, second.fps()[s], second.rules()[s], true, ids, fps, stored, storedKept, kept, reach,
                            Math.max(maxDistance, second.rules()[s].bucketDistance()), maxDistance, dups);
                }
            }
            if (dups.isEmpty()) {
                kept.add(i, fps[i]);
                decisions.add(new Decision(true, List.of(), 0, firstSequence + i));
            } else {
                dups.sort(Hit.NEAREST_FIRST);
                decisions.add(new Decision(false, limit > 0 && dups.size() > limit ? List.copyOf(dups.subList(0, limit)) : dups,
                        total, firstSequence + i));
            }
        }
        return decisions;
    }

    /**
     * Adds to {@code dups} the documents kept earlier in this request that item i's probe
     * {@code probe} finds in the buckets of a probe within {@code buckets} (as the index would),
     * judged by {@code rule} (null: no sketch), only those whose id is not there yet if
     * {@code newIdsOnly} (a second probe); returns how many.
     */
    private static int keptDuplicates(TextChecks st, int i, long probe, SketchRule rule, boolean newIdsOnly, String[] ids, long[] fps,
                                      String[] stored, String[] storedKept, BatchTables kept, int reach, int buckets, int maxDistance,
                                      List<Hit> dups) {
        int added = 0;
        for (int j : kept.within(probe, reach, buckets, fps)) {
            int d = Hamming.distance(probe, fps[j]);
            // Against an earlier document of this request as against the store: by what the store keeps of it.
            boolean verifies = st != null && st.verifies(i);
            double sim = st == null ? (d <= maxDistance ? TextVerification.UNVERIFIED : -1)
                    : TextVerification.similarityOnceStored(st, i, rule, verifies ? stored[j] : null, verifies ? storedKept[j] : null,
                    d, maxDistance);
            if (sim >= 0 && (!newIdsOnly || dups.stream().noneMatch(h -> h.id().equals(ids[j])))) {
                dups.add(sim > 1 ? new Hit(ids[j], fps[j], d) : new Hit(ids[j], fps[j], d, sim));
                added++;
            }
        }
        return added;
    }

    /** Whether {@code id} is stored with {@code fp} itself (a retried request that stored it). */
    private static boolean storedAlready(Nearest stored, String id, long fp) {
        for (Hit h : stored.hits()) {
            if (h.distance() > 0) {
                return false;
            }
            if (h.fingerprint() == fp && h.id().equals(id)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Detaches ids[i] from fps[i] in gens[i]; fingerprints left without ids leave that
     * generation's buckets, and their sketches go.
     *
     * <p>Another request may give such a fingerprint a document meanwhile (an Insert or a Dedup
     * of another id), with its sketch. Its bucket entry survives the removal: finding the
     * fingerprint without ids, it appended a copy of its own, and a removal takes one copy. Its
     * sketch is kept by {@link #dropSketchesOfEmpty}.
     */
    private void detachAndUnindex(String c, long[] gens, long[] fps, String[] ids, boolean sketches) {
        boolean[] empty = new boolean[fps.length];
        Fanout f = Fanout.start();
        for (long g : Arrays.stream(gens).distinct().toArray()) {
            int[] inGen = IntStream.range(0, fps.length).filter(i -> gens[i] == g).toArray();
            f.toOwners(shards, inGen.length, i -> placement.ownerOfFingerprint(fps[inGen[i]]), (shard, group) -> {
                int[] items = pick(inGen, group);
                return shard.detachIds(c, g, pick(fps, items), pick(ids, items));
            }, (group, flags) -> scatter(flags, pick(inGen, group), empty));
        }
        f.await();
        for (long g : Arrays.stream(gens).distinct().toArray()) {
            long[] left = BatchKeys.distinct(IntStream.range(0, fps.length).filter(i -> empty[i] && gens[i] == g).mapToLong(i -> fps[i]).toArray());
            if (left.length == 0) {
                continue;
            }
            // One round trip for the removal and the sketch drop's two reads, which do not
            // depend on it: a Delete in a collection with sketches takes four, not six.
            Fanout removal = Fanout.start();
            removeFromBuckets(removal, c, g, left);
            String[] keys = sketches ? Arrays.stream(left).mapToObj(FingerprintSketch::key).toArray(String[]::new) : null;
            boolean[] taken = sketches ? hasIds(removal, c, g, left) : null;
            String[] held = sketches ? verification.stored(removal, c, new long[]{g}, keys) : null;
            removal.await();
            if (sketches) {
                dropSketchesOfEmpty(c, g, left, keys, taken, held);
            }
        }
    }

    /** Whether each of {@code fps} has ids in generation g. */
    private boolean[] hasIds(String c, long g, long[] fps) {
        Fanout f = Fanout.start();
        boolean[] out = hasIds(f, c, g, fps);
        f.await();
        return out;
    }

    /** As {@link #hasIds(String, long, long[])}, the answers filled in once {@code f} is awaited. */
    private boolean[] hasIds(Fanout f, String c, long g, long[] fps) {
        boolean[] out = new boolean[fps.length];
        f.toOwners(shards, fps.length, i -> placement.ownerOfFingerprint(fps[i]), (shard, group) -> {
            long[] gens = new long[group.length];
            Arrays.fill(gens, g);
            return shard.resolveIds(c, gens, pick(fps, group), 1);
        }, (group, found) -> {
            for (int i = 0; i < group.length; i++) {
                out[group[i]] = found[i].total() > 0;
            }
        });
        return out;
    }

    /**
     * Drops the sketches kept for fingerprints of generation g that no document has any more
     * (of {@code left}, those a look-up finds without ids): else a document given later with
     * such a fingerprint and no text would be judged by a deleted text's sketch, and the
     * sketch's bytes would stay until the generation expires.
     *
     * <p>An Insert may give such a fingerprint a document meanwhile. The ids and the sketch
     * live on different shards, so the look-up and the drop are not one step: an Insert whose
     * attach and sketch land between them would lose its sketch, and its document would be
     * judged by distance alone. An Insert puts its sketch after its attach, so if its sketch
     * was dropped, its id is found by a second look-up after the drop; there the sketch read
     * before the drop is put back, unless a sketch is there by then. The sketch put back is of
     * a text with the same fingerprint, the deleted one's or the Insert's.
     *
     * <p>{@code taken} (whether each of left has ids) and {@code held} (the sketch under each of
     * {@code leftKeys}) were read together, before the drop.
     */
    private void dropSketchesOfEmpty(String c, long g, long[] left, String[] leftKeys, boolean[] taken, String[] leftHeld) {
        int[] empty = IntStream.range(0, left.length).filter(i -> !taken[i]).toArray();
        if (empty.length == 0) {
            return;
        }
        long[] gone = pick(left, empty);
        String[] keys = pick(leftKeys, empty);
        String[] held = pick(leftHeld, empty);
        Fanout f = Fanout.start();
        f.toOwners(shards, keys.length, i -> placement.ownerOfId(keys[i]), (shard, group) -> shard.dropTexts(c, g, pick(keys, group)));
        f.await();
        boolean[] retaken = hasIds(c, g, gone);
        int[] back = IntStream.range(0, gone.length).filter(i -> retaken[i] && held[i] != null).toArray();
        if (back.length == 0) {
            return;
        }
        String[] backKeys = pick(keys, back);
        String[] now = verification.stored(c, new long[]{g}, backKeys);
        int[] missing = IntStream.range(0, back.length).filter(i -> now[i] == null).toArray();
        String[] putKeys = pick(backKeys, missing);
        String[] putValues = pick(pick(held, back), missing);
        Fanout put = Fanout.start();
        put.toOwners(shards, putKeys.length, i -> placement.ownerOfId(putKeys[i]),
                (shard, group) -> shard.putTexts(c, g, pick(putKeys, group), pick(putValues, group)));
        put.await();
    }

    /**
     * Adds {@code fresh[0..nFresh)} ({@code freshUnscanned}: appended without a scan, see
     * ShardClient#bucketAdd) and then {@code checked[0..nChecked)} (scanned) to their buckets of
     * generation g, each table's share ordered by block first, so a shard appends each bucket's
     * run at once (ShardNode#bucketAdd). One call per node for both: the fresh parts come first
     * in it, so a checked copy of a fingerprint finds the fresh one. Sends without waiting: the
     * answer completes when every node has answered (it fails as the first call that failed,
     * wrapped in a CompletionException).
     */
    CompletableFuture<Void> addGrouped(String c, long g, long[] fresh, int nFresh, boolean freshUnscanned, long[] checked, int nChecked) {
        // One call per node: each part is a table's fingerprints of one kind, split by the
        // owners of its block runs.
        long[][][] byShard = new long[shards.length][2 * BlockTables.TABLES][];
        int[] tables = new int[2 * BlockTables.TABLES];
        boolean[] unscanned = new boolean[tables.length];
        int parts = 0;
        for (int kind = 0; kind < 2; kind++) {
            long[] fps = kind == 0 ? fresh : checked;
            int n = kind == 0 ? nFresh : nChecked;
            for (int t = 0; n > 0 && t < BlockTables.TABLES; t++, parts++) {
                int table = t;
                long[][] split = Fanout.splitRuns(BlockTables.groupByBlock(fps, n, t), fp -> BlockTables.block(fp, table),
                        block -> placement.ownerOfBucket(table, block), shards.length);
                for (int s = 0; s < shards.length; s++) {
                    byShard[s][parts] = split[s];
                }
                tables[parts] = t;
                unscanned[parts] = kind == 0 && freshUnscanned;
            }
        }
        Fanout f = Fanout.start();
        try (WriteBatch batch = WriteBatch.open()) {
            for (int s = 0; s < shards.length; s++) {
                int[] mine = new int[parts];
                int k = 0;
                for (int p = 0; p < parts; p++) {
                    if (byShard[s][p].length > 0) {
                        mine[k++] = p;
                    }
                }
                if (k > 0) {
                    mine = Arrays.copyOf(mine, k);
                    f.add(shards[s].bucketAddMany(c, g, pick(tables, mine), pick(byShard[s], mine), pick(unscanned, mine)));
                }
            }
        }
        return f.done();
    }

    /** Adds each fingerprint of {@code lists[j]} to its four buckets of generation g, {@code newFingerprints[j]} as in ShardClient#bucketAdd. */
    private void bucketAdds(String c, long g, long[][] lists, boolean[] newFingerprints) {
        int parts = lists.length * BlockTables.TABLES;
        long[][] fps = new long[parts][];
        int[] tables = new int[parts];
        boolean[] fresh = new boolean[parts];
        for (int j = 0, p = 0; j < lists.length; j++) {
            for (int t = 0; t < BlockTables.TABLES; t++, p++) {
                fps[p] = lists[j];
                tables[p] = t;
                fresh[p] = newFingerprints[j];
            }
        }
        Fanout.join(sendBucketAdds(c, g, tables, fps, fresh));
    }

    /** Adds part p's fingerprints {@code fps[p]} to their buckets of table {@code tables[p]}: one call per owning shard for all parts. */
    private CompletableFuture<Void> sendBucketAdds(String c, long g, int[] tables, long[][] fps, boolean[] newFingerprints) {
        int[][][] groups = new int[tables.length][][];
        for (int p = 0; p < tables.length; p++) {
            int t = tables[p];
            long[] part = fps[p];
            groups[p] = Fanout.group(part.length, shards.length, i -> placement.ownerOfBucket(t, BlockTables.block(part[i], t)));
        }
        Fanout f = Fanout.start();
        try (WriteBatch batch = WriteBatch.open()) {
            f.toOwnersByPart(shards, groups, (owner, shard, ps, items) -> {
                long[][] mine = new long[ps.length][];
                for (int k = 0; k < ps.length; k++) {
                    mine[k] = pick(fps[ps[k]], items[k]);
                }
                return shard.bucketAddMany(c, g, pick(tables, ps), mine, pick(newFingerprints, ps));
            }, (ps, items, changed) -> { });
        }
        return f.done();
    }

    /** Removes each fingerprint from its four buckets of generation g, one call per (table, owner), done once {@code f} is awaited. */
    private void removeFromBuckets(Fanout f, String c, long g, long[] fps) {
        for (int t = 0; t < BlockTables.TABLES; t++) {
            int table = t;
            f.toOwners(shards, fps.length, i -> placement.ownerOfBucket(table, BlockTables.block(fps[i], table)),
                    (shard, group) -> shard.bucketRemove(c, g, table, pick(fps, group)));
        }
    }

    private static void scatter(boolean[] part, int[] group, boolean[] into) {
        for (int i = 0; i < group.length; i++) {
            into[group[i]] = part[i];
        }
    }

    private static void scatter(Previous part, int[] group, Previous into) {
        for (int i = 0; i < group.length; i++) {
            into.present()[group[i]] = part.present()[i];
            into.previous()[group[i]] = part.previous()[i];
            into.generation()[group[i]] = part.generation()[i];
        }
    }

}
