package io.simdex.loadtest.ideal;

import io.simdex.fingerprint.BlockTables;
import io.simdex.server.store.MatchBuffer;

import java.util.Arrays;

/**
 * The reference point for the store: the block-table index as plain Java arrays, with no
 * persistence, paging, locking or off-heap access. Answers "every fingerprint within k <= 3 of a
 * probe" exactly as the test oracle {@code LinearScan} (fingerprint test-jar) does, at the cost of four bucket scans.
 *
 * <h2>Layout</h2>
 * <pre>
 *   table t (0..3):  sorted[t]  = all fingerprints, ordered by block t (counting sort, stable)
 *                    offsets[t] = 65,537 ints; bucket b is sorted[t][offsets[t][b] .. offsets[t][b + 1])
 * </pre>
 * 32 bytes per fingerprint plus 1 MiB of offsets. A probe scans, in each table, the contiguous
 * run whose block equals the probe's, with one XOR and one POPCNT per entry.
 *
 * <h2>Each match once, without a set</h2>
 * A stored fingerprint equal to the probe in several blocks sits in several of the scanned
 * buckets. It is reported only from the lowest such table: in table t, a candidate whose XOR with
 * the probe is zero in some block u < t was already reported from table u. Recall within 3 is
 * complete by pigeonhole (see {@link BlockTables}).
 */
public final class IdealIndex {
    private static final int BLOCK_MASK = BlockTables.KEYS_PER_TABLE - 1;

    private final long[][] sorted = new long[BlockTables.TABLES][];
    private final int[][] offsets = new int[BlockTables.TABLES][];

    private IdealIndex(long[] fingerprints) {
        for (int t = 0; t < BlockTables.TABLES; t++) {
            int[] starts = new int[BlockTables.KEYS_PER_TABLE + 1];
            for (long fp : fingerprints) {
                starts[BlockTables.block(fp, t) + 1]++;
            }
            for (int b = 0; b < BlockTables.KEYS_PER_TABLE; b++) {
                starts[b + 1] += starts[b];
            }
            long[] table = new long[fingerprints.length];
            int[] fill = Arrays.copyOf(starts, BlockTables.KEYS_PER_TABLE);
            for (long fp : fingerprints) {
                table[fill[BlockTables.block(fp, t)]++] = fp;
            }
            sorted[t] = table;
            offsets[t] = starts;
        }
    }

    /** An index over {@code fingerprints} (copied). A fingerprint given twice is stored, and reported, twice. */
    public static IdealIndex of(long[] fingerprints) {
        return new IdealIndex(fingerprints);
    }

    public int size() {
        return sorted[0].length;
    }

    /** Heap bytes of the arrays: 4 x 8 per fingerprint plus 4 x 65,537 x 4 of offsets. */
    public long bytes() {
        return (long) BlockTables.TABLES * Long.BYTES * size() + (long) BlockTables.TABLES * (BlockTables.KEYS_PER_TABLE + 1) * Integer.BYTES;
    }

    /**
     * Appends to {@code out} every stored fingerprint within {@code maxDistance} (0..3) of {@code fp}.
     * Allocation-free once {@code out} has grown. Benchmarked by StoreBench and StoreProbeBenchmark.
     */
    public void probe(long fp, int maxDistance, MatchBuffer out) {
        for (int t = 0; t < BlockTables.TABLES; t++) {
            final long[] table = sorted[t];
            final int block = (int) (fp >>> (t * BlockTables.BLOCK_BITS)) & BLOCK_MASK;
            final int end = offsets[t][block + 1];
            for (int i = offsets[t][block]; i < end; i++) {
                long x = table[i] ^ fp;
                if (Long.bitCount(x) <= maxDistance && !equalInLowerBlock(x, t)) {
                    out.add(table[i]);
                }
            }
        }
    }

    /** Distinct stored fingerprints within {@code maxDistance} of {@code fp}, sorted unsigned, as LinearScan.within. */
    public long[] within(long fp, int maxDistance) {
        MatchBuffer m = new MatchBuffer();
        probe(fp, maxDistance, m);
        return Arrays.stream(m.toArray()).distinct().boxed().sorted(Long::compareUnsigned).mapToLong(Long::longValue).toArray();
    }

    /** True if {@code xor} has a zero block below {@code table}: the match belongs to that lower table. */
    private static boolean equalInLowerBlock(long xor, int table) {
        for (int u = 0; u < table; u++) {
            if (((xor >>> (u * BlockTables.BLOCK_BITS)) & BLOCK_MASK) == 0) {
                return true;
            }
        }
        return false;
    }
}
