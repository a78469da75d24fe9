package io.simdex.router.index;

import io.simdex.fingerprint.BlockTables;
import io.simdex.router.shard.Found;
import io.simdex.router.shard.LocalShardClient;
import io.simdex.router.shard.Placement;
import io.simdex.router.shard.ShardClient;
import io.simdex.server.ShardNode;
import io.simdex.server.store.DocMaps;

import java.util.ArrayList;
import java.util.List;

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
        int variants = FanoutQuery.variants(maxDistance);
        ShardNode.Matches m = scratch.get();
        List<Candidates> out = new ArrayList<>(probes.length);
        for (long probe : probes) {
            m.clear();
            for (int t = 0; t < BlockTables.TABLES; t++) {
                for (int v = 0; v < variants; v++) {
                    long shifted = probe ^ FanoutQuery.flip(t, v);
                    nodes[placement.ownerOfBucket(t, BlockTables.block(shifted, t))]
                            .probe(c, gens, t, shifted, FanoutQuery.threshold(maxDistance, v), m);
                }
            }
            out.add(m.fps().size() == 0 ? Candidates.NONE : hits(c, probe, m, limit));
        }
        return out;
    }

    private Candidates hits(String c, long probe, ShardNode.Matches m, int limit) {
        Found found = FanoutQuery.distinctPairs(m.fps().toArray(), m.generations().toArray());
        ProbeHits hits = new ProbeHits(probe);
        for (int i = 0; i < found.fingerprints().length; i++) {
            long fp = found.fingerprints()[i];
            long g = found.generations()[i];
            DocMaps.IdList ids = nodes[placement.ownerOfFingerprint(fp)].resolveIds(c, g, fp, limit);
            hits.count(fp, ids.total());
            for (String id : ids.ids()) {
                hits.add(id, fp, g);
            }
        }
        return hits.candidates();
    }
}
