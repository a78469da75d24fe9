package io.simdex.server;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.simdex.proto.v1.ShardIdsRequest;
import io.simdex.server.store.DiskSpace;
import io.simdex.server.store.FullDisk;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A node whose data disk cannot take a file a write needs answers that write UNAVAILABLE, the
 * code routers count as a replica failure (marked behind at quorum), not as the request's error;
 * until the file can be made it refuses every write that adds data before it changes anything.
 */
class NodeFullDiskTest {
    @TempDir
    Path tmp;

    @Test
    void aWriteNeedingAFileTheDiskHasNoRoomFor_isUnavailable_andLaterWritesAreRefusedUpFront_untilThereIsRoom() throws Exception {
        try (TestShard shard = new TestShard(tmp.resolve("node"), NodeState.standalone())) {
            ShardIdsRequest old = ShardIdsRequest.newBuilder().setCollection("old").addIds("a").addFingerprints(1).build();
            shard.stub().bindIds(old);
            ShardIdsRequest fresh = ShardIdsRequest.newBuilder().setCollection("new").addIds("a").addFingerprints(1).build();
            try (FullDisk full = FullDisk.fill()) {
                StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> shard.stub().bindIds(fresh));
                assertEquals(Status.Code.UNAVAILABLE, e.getStatus().getCode(), e.getStatus().toString());
                assertTrue(e.getStatus().getDescription().startsWith("the data disk is full: cannot make "), e.getStatus().toString());

                // A write that needs no new file, refused all the same, and nothing of it written.
                ShardIdsRequest more = ShardIdsRequest.newBuilder().setCollection("old").addIds("b").addFingerprints(2).build();
                e = assertThrows(StatusRuntimeException.class, () -> shard.stub().bindIds(more));
                assertEquals(Status.Code.UNAVAILABLE, e.getStatus().getCode(), e.getStatus().toString());
                assertEquals(1, shard.node.stats("old", 0).documents());
            }
            // Refused until an attempt, at most one a second, made the file; then taken.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (true) {
                try {
                    shard.stub().bindIds(fresh);
                    break;
                } catch (StatusRuntimeException refused) {
                    assertEquals(Status.Code.UNAVAILABLE, refused.getStatus().getCode(), refused.getStatus().toString());
                    if (System.nanoTime() > deadline) {
                        fail("still refused 60 s after the disk had room: " + refused.getStatus());
                    }
                    Thread.sleep(10); // poll interval, not a wait for anything
                }
            }
            assertEquals(1, shard.node.stats("new", 0).documents());
            assertFalse(DiskSpace.isShort());
        }
    }
}
