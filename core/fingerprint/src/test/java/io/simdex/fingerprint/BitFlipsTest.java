package io.simdex.fingerprint;

import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class BitFlipsTest {
    @Test
    void flip_exactDistance() {
        SplittableRandom random = new SplittableRandom(4);
        for (int k = 0; k <= 64; k++) {
            assertEquals(k, Hamming.distance(0x1234_5678_9abc_def0L, BitFlips.flip(0x1234_5678_9abc_def0L, k, random)));
        }
    }

    @Test
    void flip_zeroAndSixtyFour_identityAndComplement() {
        SplittableRandom random = new SplittableRandom(5);
        long fp = 0x0123_4567_89ab_cdefL;
        assertEquals(fp, BitFlips.flip(fp, 0, random));
        assertEquals(~fp, BitFlips.flip(fp, 64, random));
    }

    @Test
    void flipInBlock_exactBitsInThatBlockOnly_badArgumentsRefused() {
        SplittableRandom random = new SplittableRandom(7);
        long fp = 0x0123_4567_89ab_cdefL;
        for (int t = 0; t < BlockTables.TABLES; t++) {
            for (int k = 0; k <= BlockTables.BLOCK_BITS; k++) {
                long flipped = BitFlips.flipInBlock(fp, t, k, random);
                for (int u = 0; u < BlockTables.TABLES; u++) {
                    int differing = Long.bitCount((BlockTables.block(fp, u) ^ BlockTables.block(flipped, u)) & 0xFFFFL);
                    assertEquals(u == t ? k : 0, differing, "table " + t + ", k " + k + ", block " + u);
                }
            }
        }
        assertThrows(IllegalArgumentException.class, () -> BitFlips.flipInBlock(fp, 4, 1, random));
        assertThrows(IllegalArgumentException.class, () -> BitFlips.flipInBlock(fp, 0, 17, random));
    }

    @Test
    void flipOutsideBlock_sameBucket_residueExactlyKAway_badArgumentsRefused() {
        SplittableRandom random = new SplittableRandom(8);
        long fp = 0x0123_4567_89ab_cdefL;
        for (int t = 0; t < BlockTables.TABLES; t++) {
            for (int k = 0; k <= BlockTables.RESIDUE_BITS; k++) {
                long flipped = BitFlips.flipOutsideBlock(fp, t, k, random);
                assertEquals(BlockTables.block(fp, t), BlockTables.block(flipped, t), "table " + t + ", k " + k);
                assertEquals(k, Long.bitCount(BlockTables.residue(fp, t) ^ BlockTables.residue(flipped, t)), "table " + t + ", k " + k);
            }
        }
        assertThrows(IllegalArgumentException.class, () -> BitFlips.flipOutsideBlock(fp, 4, 1, random));
        assertThrows(IllegalArgumentException.class, () -> BitFlips.flipOutsideBlock(fp, 0, 49, random));
    }

    @Test
    void flip_sameSeed_sameResult() {
        assertEquals(BitFlips.flip(42L, 5, new SplittableRandom(6)), BitFlips.flip(42L, 5, new SplittableRandom(6)));
    }

    @Test
    void flip_kOutsideZeroToSixtyFour_rejected() {
        SplittableRandom random = new SplittableRandom(7);
        assertThrows(IllegalArgumentException.class, () -> BitFlips.flip(0L, -1, random));
        assertThrows(IllegalArgumentException.class, () -> BitFlips.flip(0L, 65, random));
    }
}
