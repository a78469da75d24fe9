package io.simdex.client.batch;

import io.simdex.fingerprint.BlockTables;
import io.simdex.fingerprint.Hamming;
import io.simdex.fingerprint.IntSort;

import java.util.Arrays;

/**
 * The four block tables over a batch's distinct fingerprints, in memory: how the batch finds
 * its near-duplicates without comparing every pair (the small side of a batch-against-index join
 * becomes in-memory tables). Built once, read-only after.
 *
 * <h2>Why four 16-bit blocks find everything within 3</h2>
 * The blocks are {@link BlockTables#block}: two fingerprints at distance <= 3 differ in at
 * most 3 of the 4 blocks, so they share at least one, and table t, which groups fingerprints by
 * block t, has them in the same bucket. Scanning the probe's four buckets finds every
 * neighbour within {@link BlockTables#MAX_DISTANCE} (Manku, Jain, Das Sarma, WWW 2007,
 * section 3.1; the {@code io.simdex.fingerprint} package comment has the proof).
 *
 * <h2>Layout</h2>
 * <pre>
 *   distinct[u]            the batch's distinct fingerprints, sorted (signed), u = 0..m-1
 *   members[t][starts[t][b] .. starts[t][b+1])   the u whose block t equals b
 * </pre>
 * Each table is an int[m] ordered by one counting sort plus 65,537 offsets: 16 bytes per
 * distinct fingerprint for the four tables, 8 for the fingerprint, 1 MiB of offsets. Tables
 * over distinct values, not documents, keep a bucket small when thousands of documents share
 * one fingerprint (a crawl's 404 pages), which would otherwise make the scan quadratic.
 */
final class NearTables {
    private static final int TABLES = BlockTables.TABLES;
    private static final int KEYS = BlockTables.KEYS_PER_TABLE;

    private final long[] distinct;
    private final int[][] members = new int[TABLES][];
    private final int[][] starts = new int[TABLES][];

    private NearTables(long[] distinct) {
        this.distinct = distinct;
        for (int t = 0; t < TABLES; t++) {
            buildTable(t);
        }
    }

    /** Tables over the distinct values among {@code fingerprints[0, count)}. */
    static NearTables of(long[] fingerprints, int count) {
        long[] sorted = Arrays.copyOf(fingerprints, count);
        Arrays.sort(sorted);
        int m = 0;
        for (int i = 0; i < sorted.length; i++) {
            if (i == 0 || sorted[i] != sorted[i - 1]) {
                sorted[m++] = sorted[i];
            }
        }
        return new NearTables(Arrays.copyOf(sorted, m));
    }

    /** Distinct fingerprints in the tables. */
    int size() {
        return distinct.length;
    }

    long fingerprint(int u) {
        return distinct[u];
    }

    /** The position u of {@code fingerprint}; it must be one the tables were built from. */
    int indexOf(long fingerprint) {
        return Arrays.binarySearch(distinct, fingerprint);
    }

    /**
     * The u within {@code k} of {@code fp} whose {@code rankOf[u]} is below {@code beforeRank},
     * nearest first, then lowest rank; -1 if none. {@code fp}'s own u counts at distance 0.
     * No allocation.
     */
    int nearest(long fp, int k, int[] rankOf, int beforeRank) {
        int best = -1;
        int bestDistance = Integer.MAX_VALUE;
        int bestRank = Integer.MAX_VALUE;
        for (int t = 0; t < TABLES; t++) {
            int[] bucket = members[t];
            int b = BlockTables.block(fp, t);
            for (int p = starts[t][b], end = starts[t][b + 1]; p < end; p++) {
                int u = bucket[p];
                int rank = rankOf[u];
                if (rank >= beforeRank) {
                    continue;
                }
                int d = Hamming.distance(fp, distinct[u]);
                if (d <= k && (d < bestDistance || (d == bestDistance && rank < bestRank))) {
                    best = u;
                    bestDistance = d;
                    bestRank = rank;
                }
            }
        }
        return best;
    }

    /**
     * Every u within {@code k} of {@code fp} with {@code rankOf[u] < beforeRank}, each once,
     * nearest first, then lowest rank; at most {@code limit}.
     */
    int[] within(long fp, int k, int[] rankOf, int beforeRank, int limit) {
        int[] found = new int[8];
        int n = 0;
        for (int t = 0; t < TABLES; t++) {
            int b = BlockTables.block(fp, t);
            for (int p = starts[t][b], end = starts[t][b + 1]; p < end; p++) {
                int u = members[t][p];
                if (rankOf[u] < beforeRank && Hamming.distance(fp, distinct[u]) <= k && !contains(found, n, u)) {
                    found = n == found.length ? Arrays.copyOf(found, n * 2) : found;
                    found[n++] = u;
                }
            }
        }
        int[] out = Arrays.copyOf(found, n);
        IntSort.sort(out, (a, c) -> {
            int byDistance = Integer.compare(Hamming.distance(fp, distinct[a]), Hamming.distance(fp, distinct[c]));
            return byDistance != 0 ? byDistance : Integer.compare(rankOf[a], rankOf[c]);
        });
        return out.length > limit ? Arrays.copyOf(out, limit) : out;
    }

    private static boolean contains(int[] a, int n, int v) {
        for (int i = 0; i < n; i++) {
            if (a[i] == v) {
                return true;
            }
        }
        return false;
    }

    /** Counting sort of the distinct fingerprints by block t. */
    private void buildTable(int t) {
        int[] start = new int[KEYS + 1];
        for (long fp : distinct) {
            start[BlockTables.block(fp, t) + 1]++;
        }
        for (int b = 0; b < KEYS; b++) {
            start[b + 1] += start[b];
        }
        int[] next = Arrays.copyOf(start, KEYS);
        int[] member = new int[distinct.length];
        for (int u = 0; u < distinct.length; u++) {
            member[next[BlockTables.block(distinct[u], t)]++] = u;
        }
        members[t] = member;
        starts[t] = start;
    }
}
