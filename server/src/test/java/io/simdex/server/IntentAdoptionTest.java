package io.simdex.server;

import io.simdex.server.tls.PeerCredentials;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A node that missed a holder's intent record (it was behind) takes the intent from its peer
 * (over loopback gRPC) once caught up, for the buckets it serves, and hands it on to the next
 * holder of its keys.
 */
class IntentAdoptionTest {
    private static final String C = "c";
    private static final int[] KEYS_MISSED = {31, 32};
    private static final int[] KEYS_BOTH = {41, 42};
    private static final long MISSED = 2001;
    private static final long BOTH = 2002;
    private static final long NEXT = 2003;

    @TempDir
    Path dirA;
    @TempDir
    Path dirB;

    @Test
    void adopt_theIntentsThePeerHoldsAndThisNodeMissed_forTheBucketsItServes() throws Exception {
        try (TestShard a = new TestShard(dirA, NodeState.standalone());
             TestShard b = new TestShard(dirB, NodeState.standalone())) {
            a.leavePending(C, KEYS_MISSED, MISSED); // b missed this record
            a.leavePending(C, KEYS_BOTH, BOTH);
            b.leavePending(C, KEYS_BOTH, BOTH);

            assertEquals(0, IntentAdoption.adopt(b.node, List.of(a.target()), PeerCredentials.PLAINTEXT, bucketKey -> bucketKey != 32),
                    "a key of a bucket b does not serve: not taken");
            assertEquals(1, IntentAdoption.adopt(b.node, List.of(a.target()), PeerCredentials.PLAINTEXT, bucketKey -> true));
            assertEquals(0, IntentAdoption.adopt(b.node, List.of(a.target()), PeerCredentials.PLAINTEXT, bucketKey -> true), "taken once");
            LockGrant next = b.node.lockBuckets(C, new int[]{32}, NEXT, 10_000, 1_000);
            assertEquals(List.of(MISSED), next.pending().stream().map(LockGrant.Intent::token).toList(), "handed on to the next holder");
            assertArrayEquals(new byte[]{1, 2, 3}, next.pending().get(0).docs());
        }
    }
}
