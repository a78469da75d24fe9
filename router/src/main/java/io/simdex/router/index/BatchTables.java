package io.simdex.router.index;

import io.simdex.fingerprint.BlockTables;
import io.simdex.fingerprint.Hamming;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The four block tables over the documents of one request, in memory: how a batch finds
 * near-duplicates among itself without a quadratic scan: the small side of the join (the batch)
 * becomes in-memory tables, as in a MapReduce join of a batch against the index.
 */
final class BatchTables {
    private final Map<Integer, List<Integer>> buckets = new HashMap<>();

    void add(int index, long fp) {
        for (int t = 0; t < BlockTables.TABLES; t++) {
            buckets.computeIfAbsent(BlockTables.bucketKey(t, BlockTables.block(fp, t)), k -> new ArrayList<>(2)).add(index);
        }
    }

    /**
     * Indexes of added documents within {@code maxDistance} of {@code fp}, in insertion order,
     * among those the buckets of a probe within {@code bucketDistance} hold: beyond 3 the one-bit
     * neighbour buckets are searched too, in the tables the index reads them in (complete up to
     * the smaller of the two, at most 7; beyond, those the buckets hold, as the index answers).
     */
    Set<Integer> within(long fp, int maxDistance, int bucketDistance, long[] fps) {
        Set<Integer> out = new LinkedHashSet<>();
        for (int t = 0; t < BlockTables.TABLES; t++) {
            int block = BlockTables.block(fp, t);
            for (int v = 0; v < FanoutQuery.variants(bucketDistance, t); v++) {
                List<Integer> bucket = buckets.get(BlockTables.bucketKey(t, v == 0 ? block : block ^ (1 << (v - 1))));
                if (bucket != null) {
                    for (int j : bucket) {
                        if (Hamming.distance(fp, fps[j]) <= maxDistance) {
                            out.add(j);
                        }
                    }
                }
            }
        }
        return out;
    }
}
