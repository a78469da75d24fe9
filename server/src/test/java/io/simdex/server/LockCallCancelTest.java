package io.simdex.server;

import com.google.common.util.concurrent.ListenableFuture;
import io.simdex.proto.v1.ShardLockRequest;
import io.simdex.proto.v1.ShardLockResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A lock call whose caller goes away while it waits for busy keys (a router killed, or one that
 * gave up) stops waiting and lets go of the keys it took: over gRPC on loopback, the call
 * cancelled by its client.
 */
class LockCallCancelTest {
    private static final String COLLECTION = "c";
    private static final int LONG = 600_000;
    /** Bucket keys: a call locks them in this order (same high bits, so the salt keeps it). */
    private static final int A = 4;
    private static final int B = 5;

    @TempDir
    Path dir;

    @Test
    void lockBuckets_callCancelledWhileWaiting_releasesWhatItTook_andTakesNothingLater() throws Exception {
        try (TestShard shard = new TestShard(dir, NodeState.standalone())) {
            ShardNode node = shard.node;
            long holder = 1;
            long gone = 2;
            long next = 3;
            assertTrue(node.lockBuckets(COLLECTION, new int[] {B}, holder, LONG, 0).stamp() >= 0);
            ListenableFuture<ShardLockResponse> call = shard.futureStub().lockBuckets(ShardLockRequest.newBuilder()
                    .setCollection(COLLECTION).addBucketKeys(A).addBucketKeys(B).setToken(gone).setLeaseMs(LONG).setWaitMs(LONG).build());
            // The call holds A and waits for B, which `holder` keeps.
            DurableWritesTest.await(() -> !tryLock(node, A, next), "the call to hold A and wait for B");

            call.cancel(true);
            DurableWritesTest.await(() -> tryLock(node, A, next), "A let go once the call was cancelled");
            node.unlockBuckets(COLLECTION, new int[] {B}, holder, 0, false);
            assertTrue(node.lockBuckets(COLLECTION, new int[] {A, B}, next, LONG, 0).stamp() >= 0,
                    "B, free again, was not taken for the caller that went away");
            assertEquals(2, node.unlockBuckets(COLLECTION, new int[] {A, B}, next, 0, false));
        }
    }

    /** Locks {@code key} for {@code token} without waiting and lets it go at once; false when it is busy. */
    private static boolean tryLock(ShardNode node, int key, long token) {
        try {
            if (node.lockBuckets(COLLECTION, new int[] {key}, token, LONG, 0).stamp() < 0) {
                return false;
            }
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
        node.unlockBuckets(COLLECTION, new int[] {key}, token, 0, false);
        return true;
    }
}
