package io.simdex.server;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.simdex.proto.v1.ShardIdsRequest;
import io.simdex.server.store.DiskSpace;
import io.simdex.server.store.FullDisk;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A node whose data disk cannot take a file a write needs answers that write UNAVAILABLE, the
 * code routers count as a replica failure (marked behind at quorum), not as the request's error.
 */
class NodeFullDiskTest {
    @TempDir
    Path tmp;

    @Test
    void aWriteNeedingAFileTheDiskHasNoRoomFor_isUnavailable_namingTheDisk() throws Exception {
        try (TestShard shard = new TestShard(tmp.resolve("node"), NodeState.standalone())) {
            ShardIdsRequest req = ShardIdsRequest.newBuilder().setCollection("new").addIds("a").addFingerprints(1).build();
            try (FullDisk full = FullDisk.fill()) {
                StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> shard.stub().bindIds(req));
                assertEquals(Status.Code.UNAVAILABLE, e.getStatus().getCode(), e.getStatus().toString());
                assertTrue(e.getStatus().getDescription().startsWith("the data disk is full: cannot make "), e.getStatus().toString());
            }
            // A node refuses nothing up front (the embedded default's router does): its next write opens the store, ending the shortage.
            shard.stub().bindIds(req);
            assertEquals(1, shard.node.stats("new", 0).documents());
            assertFalse(DiskSpace.isShort());
        }
    }
}
