package io.simdex.ops.cluster;

import io.simdex.core.Partitions;
import io.simdex.fingerprint.BlockTables;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.function.IntPredicate;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CatchUpCopiesTest {
    private static final int KEYS = BlockTables.TABLES << BlockTables.BLOCK_BITS;

    @Test
    void partitionsOfAPeerBehind_leftOut_theOthersServed() {
        CatchUpCopies copies = new CatchUpCopies();
        copies.assign(1, new int[]{0, 5, 7});
        copies.assign(2, new int[]{1, 6});
        copies.assign(3, new int[]{2});
        copies.ended(1, true);
        copies.ended(2, false); // itself behind: pulled, not mirrored
        copies.ended(3, true);

        assertFalse(copies.everyMirrored());
        assertEquals(List.of(1, 3), copies.mirroredPeers());
        IntPredicate mirrored = copies.mirroredBucketKeys();
        for (int key = 0; key < KEYS; key++) {
            int p = Partitions.ofBucketKey(key);
            assertEquals(p == 0 || p == 5 || p == 7 || p == 2, mirrored.test(key), "bucket key " + key + " of partition " + p);
        }
    }

    @Test
    void everyPeerMirrored_everyAssignedPartitionServed_noOther() {
        CatchUpCopies copies = new CatchUpCopies();
        copies.assign(4, new int[]{3, 9});
        copies.assign(0, new int[]{4});
        copies.ended(4, true);
        assertFalse(copies.everyMirrored(), "peer 0 has not ended");
        copies.ended(0, true);

        assertTrue(copies.everyMirrored());
        assertEquals(List.of(0, 4), copies.mirroredPeers());
        IntPredicate mirrored = copies.mirroredBucketKeys();
        long served = IntStream.range(0, KEYS).filter(mirrored::test).count();
        long expected = IntStream.range(0, KEYS).filter(k -> List.of(3, 4, 9).contains(Partitions.ofBucketKey(k))).count();
        assertTrue(expected > 0, "the partitions hold bucket keys");
        assertEquals(expected, served);
    }

    @Test
    void aRefusedMirror_countsAsNotMirrored() {
        CatchUpCopies copies = new CatchUpCopies();
        copies.assign(1, new int[]{Partitions.COUNT - 1});
        copies.ended(1, false);
        assertFalse(copies.everyMirrored());
        assertEquals(List.of(), copies.mirroredPeers());
        IntPredicate mirrored = copies.mirroredBucketKeys();
        assertTrue(IntStream.range(0, KEYS).noneMatch(mirrored::test));
    }
}
