package io.simdex.fingerprint;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BlockTablesTest {
    @Test
    void residueAndBlock_roundTripToFingerprint_inEveryTable() {
        SplittableRandom random = new SplittableRandom(1);
        long[] edges = {0L, -1L, Long.MIN_VALUE, Long.MAX_VALUE, 0xFFFFL, 0xFFFF_0000_0000_0000L};
        for (int i = 0; i < 10_000 + edges.length; i++) {
            long fp = i < edges.length ? edges[i] : random.nextLong();
            for (int t = 0; t < BlockTables.TABLES; t++) {
                long residue = BlockTables.residue(fp, t);
                assertEquals(0, residue >>> BlockTables.RESIDUE_BITS, "residue is 48 bits");
                assertEquals(fp, BlockTables.fingerprint(t, BlockTables.block(fp, t), residue));
            }
        }
    }

    @Test
    void residueDistance_sameBlock_equalsFingerprintDistance() {
        SplittableRandom random = new SplittableRandom(2);
        for (int i = 0; i < 10_000; i++) {
            long a = random.nextLong();
            int t = random.nextInt(BlockTables.TABLES);
            long b = BlockTables.fingerprint(t, BlockTables.block(a, t), random.nextLong() & ((1L << 48) - 1));
            assertEquals(Hamming.distance(a, b),
                    Hamming.distance(BlockTables.residue(a, t), BlockTables.residue(b, t)));
        }
    }

    @Test
    void distanceThree_alwaysSharesABlock_distanceFourSometimesNot() {
        SplittableRandom random = new SplittableRandom(3);
        boolean sawFourWithoutSharedBlock = false;
        for (int i = 0; i < 100_000; i++) {
            long a = random.nextLong();
            long b3 = BitFlips.flip(a, 3, random);
            assertTrue(sharesBlock(a, b3));
            sawFourWithoutSharedBlock |= !sharesBlock(a, BitFlips.flip(a, 4, random));
        }
        assertTrue(sawFourWithoutSharedBlock, "four flips can hit every block");
    }

    @Test
    void groupByBlock_runsInBlockOrder_stableWithinARun_sameMultiset() {
        SplittableRandom random = new SplittableRandom(6);
        long[] fps = new long[20_000];
        for (int i = 0; i < fps.length; i++) {
            // Few distinct blocks, so runs are long; repeats too, so the multiset check has teeth.
            fps[i] = i % 7 == 0 && i > 0 ? fps[i - 1] : (random.nextLong() & ~0xFFFFL) | random.nextInt(50);
        }
        int n = fps.length - 3;
        for (int t = 0; t < BlockTables.TABLES; t++) {
            long[] grouped = BlockTables.groupByBlock(fps, n, t);
            assertEquals(n, grouped.length);
            for (int i = 1; i < n; i++) {
                assertTrue(BlockTables.block(grouped[i - 1], t) <= BlockTables.block(grouped[i], t), "block order at " + i);
            }
            // Stable: within each block, the input's order.
            java.util.Map<Integer, java.util.List<Long>> expected = new java.util.TreeMap<>();
            for (int i = 0; i < n; i++) {
                expected.computeIfAbsent(BlockTables.block(fps[i], t), b -> new ArrayList<>()).add(fps[i]);
            }
            long[] flattened = expected.values().stream().flatMap(java.util.List::stream).mapToLong(Long::longValue).toArray();
            org.junit.jupiter.api.Assertions.assertArrayEquals(flattened, grouped);
        }
    }

    @Test
    void block_edges_signBitInBlockThree() {
        assertEquals(0xFFFF, BlockTables.block(-1L, 0));
        assertEquals(0x8000, BlockTables.block(Long.MIN_VALUE, 3));
        assertEquals(0, BlockTables.block(Long.MIN_VALUE, 2));
        assertEquals(0x1234, BlockTables.block(0x1234_0000_0000_0000L, 3));
    }

    @Test
    void residue_tableZeroAndThree_shiftAndLowBits() {
        long fp = 0x0123_4567_89ab_cdefL;
        assertEquals(fp >>> 16, BlockTables.residue(fp, 0));
        assertEquals(0x4567_89ab_cdefL, BlockTables.residue(fp, 3));
        assertEquals(0x0123_4567_cdefL, BlockTables.residue(fp, 1));
        assertEquals(0xFFFF_FFFF_FFFFL, BlockTables.residue(-1L, 2), "48 bits set, top 16 clear");
    }

    @Test
    void fingerprint_residueBitsAbove47_ignored() {
        long fp = 0x0123_4567_89ab_cdefL;
        for (int t = 0; t < BlockTables.TABLES; t++) {
            long residue = BlockTables.residue(fp, t);
            assertEquals(fp, BlockTables.fingerprint(t, BlockTables.block(fp, t), residue | 0xFFFF_0000_0000_0000L));
        }
    }

    @Test
    void bucketKey_firstAndLast_distinctInRange() {
        assertEquals(0, BlockTables.bucketKey(0, 0));
        assertEquals(BlockTables.TABLES * BlockTables.KEYS_PER_TABLE - 1,
                BlockTables.bucketKey(BlockTables.TABLES - 1, BlockTables.KEYS_PER_TABLE - 1));
        assertEquals(BlockTables.KEYS_PER_TABLE, BlockTables.bucketKey(1, 0));
    }

    @Test
    void groupByBlock_emptyPrefix_emptyArray() {
        assertEquals(0, BlockTables.groupByBlock(new long[] {1, 2, 3}, 0, 2).length);
    }

    @Test
    void constants_fourBlocksOfSixteenBits_distanceThreeAndSeven() {
        assertEquals(Long.SIZE, BlockTables.TABLES * BlockTables.BLOCK_BITS);
        assertEquals(3, BlockTables.MAX_DISTANCE);
        assertEquals(7, BlockTables.MAX_NEIGHBOUR_DISTANCE);
        assertEquals(48, BlockTables.RESIDUE_BITS);
    }

    @Test
    void neighbourTables_noneWithin3_distanceMinus3UpTo7_allBeyond() {
        for (int d = 0; d <= 3; d++) {
            assertEquals(0, BlockTables.neighbourTables(d), "d=" + d);
        }
        for (int d = 4; d <= 7; d++) {
            assertEquals(d - 3, BlockTables.neighbourTables(d), "d=" + d);
        }
        for (int d = 8; d <= BlockTables.MAX_CANDIDATE_DISTANCE; d++) {
            assertEquals(BlockTables.TABLES, BlockTables.neighbourTables(d), "d=" + d);
        }
    }

    /**
     * Every way of spreading at most d differing bits over the four blocks (bits per block 0..d)
     * leaves a bucket the probe reads holding the fingerprint: a block with none differing, or one
     * of the first neighbourTables(d) blocks with one. One table fewer misses some spread.
     */
    @Test
    void neighbourTables_everySpreadWithin7_isInABucketReadAndNoFewerTablesSuffice() {
        for (int d = 0; d <= BlockTables.MAX_NEIGHBOUR_DISTANCE; d++) {
            int tables = BlockTables.neighbourTables(d);
            boolean fewerMiss = false;
            for (int[] spread : spreads(d)) {
                assertTrue(inBucketRead(spread, tables), "d=" + d + ", bits per block " + Arrays.toString(spread));
                fewerMiss |= tables > 0 && !inBucketRead(spread, tables - 1);
            }
            assertEquals(tables > 0, fewerMiss, "d=" + d + ": " + (tables - 1) + " tables miss some spread");
        }
    }

    private static boolean inBucketRead(int[] bitsPerBlock, int neighbourTables) {
        for (int t = 0; t < BlockTables.TABLES; t++) {
            if (bitsPerBlock[t] == 0 || (t < neighbourTables && bitsPerBlock[t] == 1)) {
                return true;
            }
        }
        return false;
    }

    /** Every (b0, b1, b2, b3) of bits per block with b0 + b1 + b2 + b3 <= d. */
    private static List<int[]> spreads(int d) {
        List<int[]> out = new ArrayList<>();
        for (int a = 0; a <= d; a++) {
            for (int b = 0; a + b <= d; b++) {
                for (int c = 0; a + b + c <= d; c++) {
                    for (int e = 0; a + b + c + e <= d; e++) {
                        out.add(new int[]{a, b, c, e});
                    }
                }
            }
        }
        return out;
    }

    private static boolean sharesBlock(long a, long b) {
        for (int t = 0; t < BlockTables.TABLES; t++) {
            if (BlockTables.block(a, t) == BlockTables.block(b, t)) {
                return true;
            }
        }
        return false;
    }
}
