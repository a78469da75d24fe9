package io.simdex.server;

import com.google.protobuf.ByteString;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.simdex.core.Partitions;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

class ProbeIdsTest {
    private static final long P = 0x0123_4567_89ab_cdefL;
    private static final long Q = 0x7edc_ba98_7654_3210L;
    /** A neighbour bucket's block bit. */
    private static final long FLIP = 1L << 60;

    @Test
    void pending_withNearest_keepsEachProbesNearestOverAllItsParts() {
        ProbeIds ids = ProbeIds.of(all(), 2);
        // Part A probes P and Q themselves; part B probes P's neighbour bucket, P ^ FLIP.
        ids.add(new ShardNode.Found[] {found(P ^ 0b111, P ^ 0b1), found(Q ^ 0b1, Q ^ 0b11)}, new long[] {P, Q}, 0);
        ids.add(new ShardNode.Found[] {found(P ^ FLIP ^ 0b1, P ^ 0b1)}, new long[] {P ^ FLIP}, FLIP);
        // P's distinct matches lie at 3, 1 and 2 of it (P ^ 0b1 found twice): the 3 goes.
        assertEquals(Set.of(P ^ 0b1, P ^ FLIP ^ 0b1, Q ^ 0b1, Q ^ 0b11), fingerprints(ids.pending()));
    }

    @Test
    void pending_withoutNearest_keepsEveryDistinctMatch_inTheSetPartitionsOnly() {
        long excluded = P ^ 0b11;
        byte[] bitmap = all().toByteArray();
        int p = Partitions.ofFingerprint(excluded);
        bitmap[p >>> 3] &= (byte) ~(1 << (p & 7));
        ProbeIds ids = ProbeIds.of(ByteString.copyFrom(bitmap), 0);
        ids.add(new ShardNode.Found[] {found(P ^ 0b111, P ^ 0b1, excluded)}, new long[] {P}, 0);
        ids.add(new ShardNode.Found[] {found(P ^ FLIP ^ 0b1, P ^ 0b1)}, new long[] {P ^ FLIP}, FLIP);
        Set<Long> expected = new TreeSet<>(Set.of(P ^ 0b111, P ^ 0b1, P ^ FLIP ^ 0b1));
        expected.removeIf(fp -> Partitions.ofFingerprint(fp) == p); // should one share the excluded one's partition
        assertEquals(expected, fingerprints(ids.pending()));
    }

    @Test
    void pending_sameFingerprintInTwoGenerations_isTwoPairs() {
        ProbeIds ids = ProbeIds.of(all(), 1);
        ids.add(new ShardNode.Found[] {new ShardNode.Found(new long[] {P ^ 1, P ^ 1, P ^ 3}, new long[] {4, 5, 4})}, new long[] {P}, 0);
        ShardNode.Found pending = ids.pending();
        assertEquals(1, pending.fingerprints().length, "the nearest pair, the first at its distance");
        assertEquals(4, pending.generations()[0]);
        ProbeIds everything = ProbeIds.of(all(), 0);
        everything.add(new ShardNode.Found[] {new ShardNode.Found(new long[] {P ^ 1, P ^ 1, P ^ 3}, new long[] {4, 5, 4})}, new long[] {P}, 0);
        assertEquals(3, everything.pending().fingerprints().length);
    }

    @Test
    void of_noBitmap_resolvesNothing_andAWrongBitmapOrNearestIsInvalid() {
        assertNull(ProbeIds.of(ByteString.EMPTY, 5));
        StatusRuntimeException size = assertThrows(StatusRuntimeException.class, () -> ProbeIds.of(ByteString.copyFrom(new byte[3]), 0));
        assertEquals(Status.Code.INVALID_ARGUMENT, size.getStatus().getCode());
        StatusRuntimeException nearest = assertThrows(StatusRuntimeException.class, () -> ProbeIds.of(all(), -1));
        assertEquals(Status.Code.INVALID_ARGUMENT, nearest.getStatus().getCode());
        assertEquals("INVALID_ARGUMENT: resolve_nearest 4294967295 is above 2147483647", nearest.getMessage());
    }

    private static ByteString all() {
        byte[] bitmap = new byte[ProbeIds.BITMAP_BYTES];
        Arrays.fill(bitmap, (byte) -1);
        return ByteString.copyFrom(bitmap);
    }

    private static ShardNode.Found found(long... fps) {
        return new ShardNode.Found(fps, new long[fps.length]);
    }

    private static Set<Long> fingerprints(ShardNode.Found found) {
        Set<Long> out = new TreeSet<>();
        for (long fp : found.fingerprints()) {
            out.add(fp);
        }
        assertEquals(found.fingerprints().length, out.size(), "each pair once");
        return out;
    }
}
