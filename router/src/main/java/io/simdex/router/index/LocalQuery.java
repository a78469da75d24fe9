package io.simdex.router.index;

import io.simdex.core.Hashing;
import io.simdex.core.text.MinHashSketch;
import io.simdex.fingerprint.BlockTables;
import io.simdex.fingerprint.Hamming;
import io.simdex.router.index.IndexRouter.TextChecks;
import io.simdex.router.shard.Found;
import io.simdex.router.shard.LocalShardClient;
import io.simdex.router.shard.Placement;
import io.simdex.router.shard.ShardClient;
import io.simdex.server.ShardNode;
import io.simdex.server.store.DocMaps;
import io.simdex.server.store.FingerprintSketch;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A query's candidates over shards that all answer in this JVM's calling thread (the embedded
 * default): each probe's buckets probed and its matches' ids resolved by direct calls to the
 * nodes, the same {@link ShardNode} calls, in the same order, as the fan-out of
 * {@link IndexRouter} makes through {@link ShardClient}s.
 *
 * <p>Why: that fan-out is built for shards that answer later, and for a one-fingerprint query
 * it cost more than the probes: per table and shard a group, a picked array, a future and a
 * callback, then partial results merged, and ids in maps by generation and fingerprint. Here
 * matches go into the thread's two buffers, and a probe without matches allocates nothing but
 * its empty list ({@code RouterQueryBenchmark} in loadtest measures both paths).
 */
final class LocalQuery {
    private final ShardNode[] nodes;
    private final Placement placement;
    private final ThreadLocal<ShardNode.Matches> scratch = ThreadLocal.withInitial(ShardNode.Matches::new);
    private final ThreadLocal<Neighbourhood> neighbourhood = ThreadLocal.withInitial(Neighbourhood::new);

    private LocalQuery(ShardNode[] nodes, Placement placement) {
        this.nodes = nodes;
        this.placement = placement;
    }

    /** Over {@code shards} if every one answers in the caller's thread; else null. */
    static LocalQuery over(ShardClient[] shards, Placement placement) {
        ShardNode[] nodes = new ShardNode[shards.length];
        for (int s = 0; s < shards.length; s++) {
            nodes[s] = shards[s] instanceof LocalShardClient local ? local.inCallingThread() : null;
            if (nodes[s] == null) {
                return null;
            }
        }
        return new LocalQuery(nodes, placement);
    }

    /** As {@link FanoutQuery#candidates}: the stored documents within {@code maxDistance} of each probe, at most {@code limit} ids of each fingerprint. */
    List<Candidates> candidates(String c, long[] gens, long[] probes, int maxDistance, int limit) {
        return candidates(c, gens, probes, maxDistance, maxDistance, limit, null);
    }

    /**
     * As {@link #candidates(String, long[], long[], int, int)}, reading the buckets of a probe
     * within {@code buckets} (at most maxDistance); with {@code checks}, a probe with
     * a sketch judges each matched fingerprint by the sketch kept for it before resolving its
     * ids: one it rejects costs no id lookup and is left out, the ids of one it keeps carry the
     * estimate as their similarity, and those of a fingerprint without one are left to
     * {@link TextVerification} (-1).
     */
    List<Candidates> candidates(String c, long[] gens, long[] probes, int maxDistance, int buckets, int limit, TextChecks checks) {
        ShardNode.Matches m = scratch.get();
        List<Candidates> out = new ArrayList<>(probes.length);
        // The probes of a batch of texts share many candidates (to distance 7 they number in
        // the hundreds, DedupTextBenchmark): each is resolved, and its sketch read, once per call.
        ShardNode.Stores[] stores = new ShardNode.Stores[nodes.length];
        Batch batch = new Batch(stores, probes.length > 1 ? new HashMap<>() : null, checks != null ? new HashMap<>() : null);
        for (int i = 0; i < probes.length; i++) {
            long probe = probes[i];
            m.clear();
            if (buckets > BlockTables.MAX_DISTANCE || probes.length > 1) {
                prefetch(c, gens, probe, buckets, stores, m);
            }
            for (int t = 0; t < BlockTables.TABLES; t++) {
                for (int v = 0; v < FanoutQuery.variants(buckets, t); v++) {
                    long shifted = probe ^ FanoutQuery.flip(t, v);
                    int owner = placement.ownerOfBucket(t, BlockTables.block(shifted, t));
                    nodes[owner].probe(storesOf(owner, c, gens, stores), t, shifted, FanoutQuery.threshold(maxDistance, v), m);
                }
            }
            MinHashSketch sketch = checks == null ? null : checks.sketch(i);
            byte[] packed = sketch != null && sketch.bins() == FingerprintSketch.BINS ? FingerprintSketch.pack(sketch) : null;
            if (packed != null) {
                SketchReads.probes(1);
            }
            boolean verified = checks != null && checks.verifies(i);
            out.add(m.fps().size() == 0 ? Candidates.NONE
                    : hits(c, gens, probe, m, limit, batch, verified, packed, packed == null ? null : checks.sketchRule(i)));
        }
        return out;
    }

    /**
     * Brings in the buckets a probe is about to read, a node's at a time
     * ({@link ShardNode#prefetch}): probed one by one, each waited for its own misses. Beyond
     * distance 3 those are 20 to 68. Within 3 they are 4, about one a node, and a probe of a batch
     * gains (batched Query at 10M stored: 1.22x and 1.08x the fingerprints a second, batched
     * Dedup 0.96x and 1.02x; two servers side by side, `run --batch 1000 --concurrency 2
     * --compare`, two rounds), but a call of one probe did not (unary Query at c=8: 0.89x and
     * 0.96x the calls a second), so it probes as before.
     */
    private void prefetch(String c, long[] gens, long probe, int buckets, ShardNode.Stores[] stores, ShardNode.Matches m) {
        Neighbourhood n = neighbourhood.get();
        n.clear();
        for (int t = 0; t < BlockTables.TABLES; t++) {
            for (int v = 0; v < FanoutQuery.variants(buckets, t); v++) {
                long shifted = probe ^ FanoutQuery.flip(t, v);
                n.add(placement.ownerOfBucket(t, BlockTables.block(shifted, t)), t, shifted);
            }
        }
        for (int owner = 0; owner < nodes.length; owner++) {
            if (n.counts[owner] > 0) {
                m.fps().keep(nodes[owner].prefetch(storesOf(owner, c, gens, stores), n.tables[owner], n.fps[owner], n.counts[owner]));
            }
        }
    }

    /** A probe's buckets grouped by the node that owns them, reused by the thread. */
    private final class Neighbourhood {
        final int[][] tables = new int[nodes.length][BlockTables.TABLES * (1 + BlockTables.BLOCK_BITS)];
        final long[][] fps = new long[nodes.length][BlockTables.TABLES * (1 + BlockTables.BLOCK_BITS)];
        final int[] counts = new int[nodes.length];

        void clear() {
            Arrays.fill(counts, 0);
        }

        void add(int owner, int table, long fp) {
            tables[owner][counts[owner]] = table;
            fps[owner][counts[owner]++] = fp;
        }
    }

    /**
     * What a call reads once: each node's stores (null until the call needs them), matches' ids
     * (null for a one-probe call) and their kept sketches ({@link #NO_SKETCH}: none; null map: not read).
     */
    private record Batch(ShardNode.Stores[] stores, Map<Match, DocMaps.IdList> resolved, Map<Match, byte[]> kept) {
    }

    /** A fingerprint without a kept sketch, in {@link Batch#kept}. */
    private static final byte[] NO_SKETCH = new byte[0];

    /**
     * A matched fingerprint in a generation. Its hash is mixed: a batch's candidates differ from
     * their probes in a few bits, and {@code Long.hashCode} folds bits 32 apart (HashMap then 16
     * apart) onto one, which filled some bins of the batch's map to trees.
     */
    private record Match(long fp, long generation) {
        @Override
        public int hashCode() {
            return (int) Hashing.mix64(fp ^ generation * 0x9E3779B97F4A7C15L);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Match m && m.fp == fp && m.generation == generation;
        }
    }

    /**
     * A probe's candidates from its matches in {@code m}; a {@code verified} probe's only its
     * {@link VerificationBudget} nearest, the others neither read nor resolved.
     */
    private Candidates hits(String c, long[] gens, long probe, ShardNode.Matches m, int limit, Batch batch, boolean verified, byte[] sketch,
            SketchRule rule) {
        Found found = gens.length == 1 ? distinct(m.fps().toArray(), gens[0]) : FanoutQuery.distinctPairs(m.fps().toArray(), m.generations().toArray());
        if (verified) {
            found = VerificationBudget.nearest(probe, found, VerificationBudget.FINGERPRINTS);
        }
        ProbeHits hits = new ProbeHits(probe);
        for (int i = 0; i < found.fingerprints().length; i++) {
            long fp = found.fingerprints()[i];
            long g = found.generations()[i];
            double similarity = -1;
            if (sketch != null) {
                byte[] kept = batch.kept().computeIfAbsent(new Match(fp, g), k -> {
                    SketchReads.reads(1);
                    return kept(c, gens, k.fp(), k.generation(), batch.stores());
                });
                if (kept != NO_SKETCH) {
                    similarity = SketchRule.estimatePacked(sketch, kept);
                    if (!rule.keeps(Hamming.distance(fp, probe), similarity)) {
                        continue;
                    }
                }
            }
            DocMaps.IdList ids = batch.resolved() == null ? resolve(c, gens, fp, g, limit, batch.stores())
                    : batch.resolved().computeIfAbsent(new Match(fp, g), k -> resolve(c, gens, k.fp(), k.generation(), limit, batch.stores()));
            hits.count(fp, ids.total());
            for (String id : ids.ids()) {
                hits.add(id, fp, g, similarity);
            }
        }
        return hits.candidates();
    }

    private DocMaps.IdList resolve(String c, long[] gens, long fp, long g, int limit, ShardNode.Stores[] stores) {
        int owner = placement.ownerOfFingerprint(fp);
        return nodes[owner].resolveIds(storesOf(owner, c, gens, stores), g, fp, limit);
    }

    /** The packed sketch kept for {@code fp} in generation g, {@link #NO_SKETCH} if none. */
    private byte[] kept(String c, long[] gens, long fp, long g, ShardNode.Stores[] stores) {
        int owner = placement.ownerOfId(FingerprintSketch.key(fp));
        byte[] kept = nodes[owner].packedSketchOf(storesOf(owner, c, gens, stores), g, fp);
        return kept == null ? NO_SKETCH : kept;
    }

    /** Node {@code owner}'s stores of the call's generations, found on first use. */
    private ShardNode.Stores storesOf(int owner, String c, long[] gens, ShardNode.Stores[] stores) {
        if (stores[owner] == null) {
            stores[owner] = nodes[owner].stores(c, gens);
        }
        return stores[owner];
    }

    /**
     * The distinct fingerprints of one generation's matches (a fingerprint equal in several
     * blocks is found in several tables), in ascending order: a sort, where pairs of
     * generations need {@link FanoutQuery#distinctPairs}'s maps beyond a few dozen matches.
     */
    static Found distinct(long[] fps, long generation) {
        Arrays.sort(fps);
        int n = 0;
        for (int i = 0; i < fps.length; i++) {
            if (i == 0 || fps[i] != fps[i - 1]) {
                fps[n++] = fps[i];
            }
        }
        long[] gens = new long[n];
        Arrays.fill(gens, generation);
        return new Found(n == fps.length ? fps : Arrays.copyOf(fps, n), gens);
    }
}
