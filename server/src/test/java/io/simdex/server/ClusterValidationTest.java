package io.simdex.server;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.simdex.core.Partitions;
import io.simdex.fingerprint.BlockTables;
import io.simdex.proto.v1.ExportChunk;
import io.simdex.proto.v1.PartitionsRequest;
import io.simdex.proto.v1.PullRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Bad partitions, sources and chunks are refused before anything changes. */
class ClusterValidationTest {
    private static final int[] ALL = IntStream.range(0, Partitions.COUNT).toArray();

    @TempDir
    Path dirA;
    @TempDir
    Path dirB;
    private TestShard a;
    private TestShard b;
    private ReferenceContents data;

    @BeforeEach
    void start() {
        a = new TestShard(dirA, NodeState.standalone());
        b = new TestShard(dirB, NodeState.standalone());
        data = ReferenceContents.random(5, 300, 50);
        data.loadInto(a.node);
    }

    @AfterEach
    void stop() throws InterruptedException {
        a.close();
        b.close();
    }

    @Test
    void dropPartitions_partitionOutOfRangeOrNone_invalidArgument_nothingDropped() {
        assertInvalid("partition 4096 outside 0..4095", () -> a.control().dropPartitions(request(List.of(0, 1, 4096))));
        assertInvalid("partition 4294967295 outside 0..4095", () -> a.control().dropPartitions(request(List.of(7, -1))));
        assertInvalid("no partitions given", () -> a.control().dropPartitions(request(List.of())));
        data.assertHeldExactly(a.node, p -> true, "A after refused drops");
    }

    @Test
    void pullPartitions_emptySourceOrBadPartitions_invalidArgument_nothingPulled() {
        assertInvalid("source is empty: give the peer's host:port",
                () -> b.control().pullPartitions(PullRequest.newBuilder().addPartitions(3).build()).hasNext());
        assertInvalid("partition 5000 outside 0..4095",
                () -> b.control().pullPartitions(PullRequest.newBuilder().setSource(a.target()).addPartitions(3).addPartitions(5000).build()).hasNext());
        assertInvalid("no partitions given",
                () -> b.control().pullPartitions(PullRequest.newBuilder().setSource(a.target()).build()).hasNext());
        assertThrows(IllegalArgumentException.class, () -> new PartitionPuller(b.node).pull(" ", ALL, n -> { }));
        assertThrows(IllegalArgumentException.class, () -> new PartitionPuller(b.node).pull(a.target(), new int[]{1, 4096}, n -> { }));
        data.assertHeldExactly(b.node, p -> false, "B after refused pulls");
    }

    @Test
    void exportPartitions_badPartitions_invalidArgument() {
        assertInvalid("partition 4096 outside 0..4095", () -> a.control().exportPartitions(request(List.of(4096))).hasNext());
    }

    @Test
    void applyChunk_recordOutsidePulledPartitions_rejectedBeforeAnyWrite() {
        long fp = 0x00AB_CDEF_1234_5678L;
        int inSet = Partitions.ofBucket(0, BlockTables.block(fp, 0));
        int outside = Partitions.ofBucket(1, BlockTables.block(fp, 1));
        assertTrue(inSet != outside, "the test needs two partitions");
        ExportChunk chunk = ExportChunk.newBuilder().setCollection("c").setGeneration(0)
                .addBucketTables(0).addBucketFingerprints(fp).addBucketTables(1).addBucketFingerprints(fp).build();
        PullTombstones pull = b.node.pulls().begin(PartitionSet.of(inSet));
        try {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new ChunkApplier(b.node, pull).apply(chunk));
            assertEquals("peer sent a bad export chunk: bucket entry outside the 1 partitions pulled", e.getMessage());
            assertNull(b.node.collection("c").existing(0), "not even the entry inside the partitions was written");
            assertThrows(IllegalArgumentException.class, () -> new ChunkApplier(b.node, pull).apply(
                    chunk.toBuilder().clearBucketTables().addBucketTables(0).build()), "parallel lists of unequal length");
        } finally {
            b.node.pulls().end(pull);
        }
    }

    private static PartitionsRequest request(List<Integer> partitions) {
        return PartitionsRequest.newBuilder().addAllPartitions(partitions).build();
    }

    private static void assertInvalid(String message, Executable call) {
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, call);
        assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode());
        assertEquals(message, e.getStatus().getDescription());
    }
}
