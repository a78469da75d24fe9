package io.simdex.server;

import io.simdex.server.tls.PeerCredentials;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A node that missed a holder's unlock keeps its intent pending; once it has caught up, it
 * asks its peer (over loopback gRPC) and settles what the peer no longer holds.
 */
class StaleIntentsTest {
    private static final String C = "c";
    private static final int[] KEYS_SETTLED = {11, 12};
    private static final int[] KEYS_PENDING = {21, 22};
    private static final long SETTLED = 1001;
    private static final long PENDING = 1002;
    private static final long NEXT = 1003;

    @TempDir
    Path dirA;
    @TempDir
    Path dirB;

    @Test
    void settle_intentsThePeerSettled_settledHere_theOnesItStillHoldsStay() throws Exception {
        try (TestShard a = new TestShard(dirA, NodeState.standalone());
             TestShard b = new TestShard(dirB, NodeState.standalone())) {
            for (TestShard n : List.of(a, b)) {
                n.leavePending(C, KEYS_SETTLED, SETTLED);
                n.leavePending(C, KEYS_PENDING, PENDING);
            }
            a.node.settleIntents(new long[]{SETTLED}); // the next holder stored SETTLED's documents and settled it: B missed that
            long[] before = b.node.pendingIntents();
            assertEquals(2, before.length);

            assertEquals(1, StaleIntents.settle(b.node, before, List.of(a.target()), PeerCredentials.PLAINTEXT));
            assertArrayEquals(new long[]{PENDING}, b.node.pendingIntents());
            assertEquals(List.of(), b.node.lockBuckets(C, KEYS_SETTLED, NEXT, 10_000, 1_000).pending(), "nothing handed on");
            assertEquals(List.of(PENDING), b.node.lockBuckets(C, KEYS_PENDING, NEXT, 10_000, 1_000).pending().stream()
                    .map(LockGrant.Intent::token).toList(), "still handed on: the peer holds it too");
            assertEquals(0, StaleIntents.settle(b.node, new long[0], List.of(a.target()), PeerCredentials.PLAINTEXT));
        }
    }
}
