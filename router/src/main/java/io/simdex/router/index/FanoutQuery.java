package io.simdex.router.index;

import io.grpc.Context;
import io.simdex.fingerprint.BlockTables;
import io.simdex.router.shard.Fanout;
import io.simdex.router.shard.Found;
import io.simdex.router.shard.Ids;
import io.simdex.router.shard.NodeReads;
import io.simdex.router.shard.Placement;
import io.simdex.router.shard.ShardClient;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntPredicate;
import java.util.stream.IntStream;

import static io.simdex.router.shard.Fanout.pick;

/**
 * A query through the fan-out: the four tables' buckets probed on their owners in parallel, then
 * the matches' ids resolved on the fingerprints' owners. A bucket's owner resolves the ids of
 * the matches whose fingerprints its group owns too, in the same call; the rest take a second
 * round trip (none at all on one shard group). In a cluster the calls go node by node
 * ({@link NodeReads}): one call per node the query reads, which resolves the ids of every group
 * that node serves; a query whose node call fails over is read again through the replica sets.
 * This is the path for shards that answer later (remote shards, replica sets); {@link
 * LocalQuery} makes the same calls in the same order when every shard answers in the caller's
 * thread. Both read the buckets this class names ({@link #variants}, {@link #flip}, {@link
 * #threshold}).
 */
final class FanoutQuery {
    /** Up to this many matches, {@link #distinctPairs} compares pairwise instead of hashing. */
    private static final int SMALL_PAIRS = 32;

    private final ShardClient[] shards;
    private final Placement placement;
    /** Reads node by node, or null: group by group. */
    private final NodeReads nodeReads;
    /** Every group read through its own client (the shard or replica set). */
    private final Readers byGroup;

    FanoutQuery(ShardClient[] shards, Placement placement, NodeReads nodeReads) {
        this.shards = shards;
        this.placement = placement;
        this.nodeReads = nodeReads;
        int[] identity = new int[shards.length];
        byte[][] partitions = new byte[shards.length][];
        for (int g = 0; g < shards.length; g++) {
            identity[g] = g;
            partitions[g] = placement.partitionBitmap(g);
        }
        this.byGroup = new Readers(shards, identity, partitions);
    }

    /**
     * Who reads each group for one query: {@code clients[readerOfGroup[g]]} probes group g's
     * buckets and resolves the ids of fingerprints in {@code resolvable[that reader]}.
     */
    private record Readers(ShardClient[] clients, int[] readerOfGroup, byte[][] resolvable) {
    }

    private Readers byNode(NodeReads.Plan plan) {
        int[] readerOfGroup = new int[shards.length];
        for (int g = 0; g < shards.length; g++) {
            readerOfGroup[g] = plan.reader(g);
        }
        byte[][] resolvable = new byte[plan.readers()][];
        for (int r = 0; r < resolvable.length; r++) {
            resolvable[r] = plan.resolvable(r, placement);
        }
        return new Readers(plan.clients(shards), readerOfGroup, resolvable);
    }

    /** The stored documents within {@code maxDistance} of each probe, at most {@code limit} ids (0: all) of each fingerprint. */
    List<Candidates> candidates(String c, long[] generations, long[] probes, int maxDistance, int limit) {
        return candidates(c, generations, probes, maxDistance, maxDistance, limit, null);
    }

    /**
     * As above, reading the buckets of a probe within {@code buckets} ({@link #variants}; at most
     * maxDistance); the probes {@code verified} accepts (null: none) keep only their
     * {@link VerificationBudget} nearest matched fingerprints, whose ids alone are resolved.
     */
    List<Candidates> candidates(String c, long[] generations, long[] probes, int maxDistance, int buckets, int limit, IntPredicate verified) {
        return Fanout.join(candidatesAsync(c, generations, probes, maxDistance, buckets, limit, verified));
    }

    /**
     * As {@link #candidates}, blocking no thread: the second round starts, and the answer is
     * made, on the thread that completes the first round's last call (a gRPC transport thread),
     * in the caller's gRPC Context (its deadline reaches the second round too).
     */
    CompletableFuture<List<Candidates>> candidatesAsync(String c, long[] generations, long[] probes, int maxDistance, int limit) {
        return candidatesAsync(c, generations, probes, maxDistance, maxDistance, limit, null);
    }

    private CompletableFuture<List<Candidates>> candidatesAsync(String c, long[] generations, long[] probes, int maxDistance, int buckets,
            int limit, IntPredicate verified) {
        Context context = Context.current();
        if (nodeReads == null) {
            return candidatesAsync(c, generations, probes, maxDistance, buckets, limit, verified, byGroup, context);
        }
        return candidatesAsync(c, generations, probes, maxDistance, buckets, limit, verified, byNode(nodeReads.plan()), context)
                .exceptionallyCompose(t -> {
            if (!NodeReads.failsOver(Fanout.cause(t))) {
                return CompletableFuture.failedFuture(t);
            }
            // A node failed (the failure detector has not seen it yet): the replica sets fail over.
            return candidatesAsync(c, generations, probes, maxDistance, buckets, limit, verified, byGroup, context);
        });
    }

    private CompletableFuture<List<Candidates>> candidatesAsync(String c, long[] generations, long[] probes, int maxDistance, int buckets,
            int limit, IntPredicate verified, Readers readers, Context context) {
        Map<Long, Map<Long, Ids>> ids = new HashMap<>();
        // Where every probe is cut to the budget below, nodes resolve only the ids it can keep.
        int nearest = verified != null && IntStream.range(0, probes.length).allMatch(verified) ? VerificationBudget.FINGERPRINTS : 0;
        Context previous = context.attach();
        try {
            return probe(c, generations, probes, maxDistance, buckets, limit, nearest, ids, readers).thenCompose(matches -> {
                if (verified != null) {
                    for (int q = 0; q < matches.length; q++) {
                        if (verified.test(q)) {
                            matches[q] = VerificationBudget.nearest(probes[q], matches[q], VerificationBudget.FINGERPRINTS);
                        }
                    }
                }
                Context inner = context.attach();
                try {
                    return resolve(c, matches, limit, ids, readers).thenApply(done -> assemble(probes, matches, ids));
                } finally {
                    context.detach(inner);
                }
            });
        } finally {
            context.detach(previous);
        }
    }

    private static List<Candidates> assemble(long[] probes, Found[] matches, Map<Long, Map<Long, Ids>> ids) {
        List<Candidates> out = new ArrayList<>(probes.length);
        for (int q = 0; q < probes.length; q++) {
            Found m = matches[q];
            if (m.fingerprints().length == 0) {
                out.add(Candidates.NONE); // most probes of a dedup stream: no maps for nothing
                continue;
            }
            ProbeHits hits = new ProbeHits(probes[q]);
            for (int i = 0; i < m.fingerprints().length; i++) {
                long fp = m.fingerprints()[i];
                long g = m.generations()[i];
                Ids found = ids.getOrDefault(g, Map.of()).getOrDefault(fp, Ids.NONE);
                hits.count(fp, found.total());
                for (String id : found.ids()) {
                    hits.add(id, fp, g);
                }
            }
            out.add(hits.candidates());
        }
        return out;
    }

    /**
     * Probes all four tables of the given generations for every probe; each probe's distinct
     * (fp, generation) matches. Beyond distance 3 each table is also probed at the 16 one-bit
     * neighbours of the probe's block, with a residue threshold one lower
     * ({@link BlockTables#MAX_NEIGHBOUR_DISTANCE} says why that finds everything up to 7), in as
     * many tables as a probe within {@code buckets} needs.
     */
    private CompletableFuture<Found[]> probe(String c, long[] gens, long[] probes, int maxDistance, int buckets, int limit, int nearest,
            Map<Long, Map<Long, Ids>> ids, Readers readers) {
        int partCount = parts(buckets);
        Found[][] parts = new Found[partCount][probes.length];
        long[][] shifted = new long[partCount][];
        long[] flips = new long[partCount];
        int[] tables = new int[partCount];
        int[] thresholds = new int[partCount];
        int[][][] groups = new int[partCount][][];
        int part = 0;
        for (int t = 0; t < BlockTables.TABLES; t++) {
            for (int v = 0; v < variants(buckets, t); v++, part++) {
                int table = t;
                long flip = flip(t, v);
                long[] probed = flip == 0 ? probes : flipped(probes, flip);
                shifted[part] = probed;
                flips[part] = flip;
                tables[part] = t;
                thresholds[part] = threshold(maxDistance, v);
                groups[part] = Fanout.group(probes.length, readers.clients().length,
                        i -> readers.readerOfGroup()[placement.ownerOfBucket(table, BlockTables.block(probed[i], table))]);
            }
        }
        // One call per reader for all the tables' buckets it reads: a round trip per reader, not per table.
        Fanout f = Fanout.start();
        f.toOwnersByPart(readers.clients(), groups, (owner, shard, ps, items) -> {
            long[][] fps = new long[ps.length][];
            for (int k = 0; k < ps.length; k++) {
                fps[k] = pick(shifted[ps[k]], items[k]);
            }
            return shard.probeResolving(c, gens, pick(tables, ps), fps, pick(thresholds, ps), readers.resolvable()[owner], limit,
                    pick(flips, ps), nearest);
        }, (ps, items, probed) -> {
            for (int k = 0; k < ps.length; k++) {
                for (int i = 0; i < items[k].length; i++) {
                    parts[ps[k]][items[k][i]] = probed.parts()[k][i];
                }
            }
            put(ids, probed.resolved().generations(), probed.resolved().fingerprints(), probed.ids());
        });
        return f.done().thenApply(done -> distinct(probes.length, parts));
    }

    /** Each probe's distinct (fp, generation) matches over every part. */
    private static Found[] distinct(int probes, Found[][] parts) {
        Found[] out = new Found[probes];
        for (int q = 0; q < probes; q++) {
            int n = 0;
            for (Found[] part : parts) {
                n += part[q].fingerprints().length;
            }
            long[] fps = new long[n];
            long[] gs = new long[n];
            int at = 0;
            for (Found[] part : parts) {
                Found found = part[q];
                System.arraycopy(found.fingerprints(), 0, fps, at, found.fingerprints().length);
                System.arraycopy(found.generations(), 0, gs, at, found.generations().length);
                at += found.fingerprints().length;
            }
            out[q] = n <= 1 ? new Found(fps, gs) : distinctPairs(fps, gs);
        }
        return out;
    }

    /**
     * How many buckets of {@code table} a probe within {@code maxDistance} reads: its own, and
     * in the first {@link BlockTables#neighbourTables} tables its 16 one-bit neighbours too.
     */
    static int variants(int maxDistance, int table) {
        return table < BlockTables.neighbourTables(maxDistance) ? 1 + BlockTables.BLOCK_BITS : 1;
    }

    /** How many buckets a probe within {@code maxDistance} reads in all tables. */
    static int parts(int maxDistance) {
        return BlockTables.TABLES + BlockTables.neighbourTables(maxDistance) * BlockTables.BLOCK_BITS;
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

    /**
     * Completes {@code ids} (generation -> fingerprint -> at most {@code limit} ids) for every
     * matched (fingerprint, generation) the probes did not resolve: one call per owner of any.
     */
    private CompletableFuture<Void> resolve(String c, Found[] matches, int limit, Map<Long, Map<Long, Ids>> ids, Readers readers) {
        int n = 0;
        for (Found m : matches) {
            n += m.fingerprints().length;
        }
        long[] fps = new long[n];
        long[] gens = new long[n];
        int at = 0;
        for (Found m : matches) {
            for (int i = 0; i < m.fingerprints().length; i++) {
                if (!ids.getOrDefault(m.generations()[i], Map.of()).containsKey(m.fingerprints()[i])) {
                    fps[at] = m.fingerprints()[i];
                    gens[at++] = m.generations()[i];
                }
            }
        }
        if (at == 0) {
            return CompletableFuture.completedFuture(null); // every match came with its ids
        }
        Found all = distinctPairs(Arrays.copyOf(fps, at), Arrays.copyOf(gens, at));
        long[] allFps = all.fingerprints();
        long[] allGens = all.generations();
        Fanout f = Fanout.start();
        f.toOwners(readers.clients(), allFps.length, i -> readers.readerOfGroup()[placement.ownerOfFingerprint(allFps[i])],
                (shard, group) -> shard.resolveIds(c, pick(allGens, group), pick(allFps, group), limit),
                (group, found) -> put(ids, pick(allGens, group), pick(allFps, group), found));
        return f.done();
    }

    /** Records found[i] as the ids of fps[i] in gens[i]; answers arrive on several threads. */
    private static void put(Map<Long, Map<Long, Ids>> ids, long[] gens, long[] fps, Ids[] found) {
        synchronized (ids) {
            for (int i = 0; i < found.length; i++) {
                ids.computeIfAbsent(gens[i], g -> new HashMap<>()).put(fps[i], found[i]);
            }
        }
    }

    /** Distinct (fingerprint, generation) pairs: a fingerprint equal in several blocks is found in several tables. */
    static Found distinctPairs(long[] fps, long[] gens) {
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
            return new Found(n == outF.length ? outF : Arrays.copyOf(outF, n), n == outG.length ? outG : Arrays.copyOf(outG, n));
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
        return new Found(Arrays.copyOf(outF, n), Arrays.copyOf(outG, n));
    }
}
