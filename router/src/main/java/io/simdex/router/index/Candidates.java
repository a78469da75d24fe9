package io.simdex.router.index;

import io.simdex.fingerprint.BlockTables;
import io.simdex.router.index.IndexRouter.Hit;

import java.util.List;

/**
 * One probe's candidates: its hits, nearest first (then by id), with at most the limit asked
 * for of each matched fingerprint's ids, and how many stored ids match at each distance, cut or
 * not, so a fingerprint copied a million times costs a page of ids and a count.
 */
record Candidates(List<Hit> hits, long[] atDistance) {
    static final Candidates NONE = new Candidates(List.of(), new long[0]);
    /** Distances a probe can reach: up to the one-bit neighbour buckets' candidate limit. */
    static final int DISTANCES = BlockTables.MAX_CANDIDATE_DISTANCE + 1;

    /** How many stored ids lie within {@code k}. */
    long within(int k) {
        long n = 0;
        for (int d = 0; d <= k && d < atDistance.length; d++) {
            n += atDistance[d];
        }
        return n;
    }
}
