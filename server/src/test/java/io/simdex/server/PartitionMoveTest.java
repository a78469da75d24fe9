package io.simdex.server;

import io.simdex.core.Partitions;
import io.simdex.proto.v1.ExportChunk;
import io.simdex.proto.v1.PartitionsRequest;
import io.simdex.proto.v1.PullProgress;
import io.simdex.proto.v1.PullRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A partition move between two real nodes over loopback gRPC, checked against the reference model. */
class PartitionMoveTest {
    private static final long SEED = 20240611L;

    @TempDir
    Path dirA;
    @TempDir
    Path dirB;

    @Test
    void pullThenDrop_randomHalfOfPartitions_eachNodeHoldsExactlyItsShare() throws Exception {
        ReferenceContents data = ReferenceContents.random(SEED, 8_000, 2_000);
        SplittableRandom random = new SplittableRandom(SEED);
        int[] moved = IntStream.range(0, Partitions.COUNT).filter(p -> random.nextBoolean()).toArray();
        PartitionSet set = PartitionSet.of(moved);
        String label = "seed " + SEED;
        try (TestShard a = new TestShard(dirA, new NodeState("node-a", 1, true));
             TestShard b = new TestShard(dirB, new NodeState("node-b", 1, true))) {
            data.loadInto(a.node);
            long inSet = data.records(set::contains);
            assertTrue(inSet > 50_000 && inSet < data.records(p -> true), "a real share moves: " + inSet);

            List<PullProgress> progress = new ArrayList<>();
            b.control().pullPartitions(PullRequest.newBuilder().setSource(a.target()).addAllPartitions(boxed(moved)).build())
                    .forEachRemaining(progress::add);
            PullProgress last = progress.get(progress.size() - 1);
            assertTrue(last.getDone(), "the stream ends with done");
            assertEquals(inSet, last.getRecords(), "every record of the partitions, counted once");
            assertTrue(progress.size() > inSet / PartitionExport.MAX_RECORDS, "progress while pulling: " + progress.size() + " messages");
            assertFalse(progress.get(0).getDone());

            data.assertHeldExactly(b.node, set::contains, label + ", B after pull");
            data.assertHeldExactly(a.node, p -> true, label + ", A after pull");
            assertEquals(inSet, exported(b, IntStream.range(0, Partitions.COUNT).toArray()), "B exports only what it pulled");

            long dropped = a.control().dropPartitions(PartitionsRequest.newBuilder().addAllPartitions(boxed(moved)).build()).getChanged();
            assertEquals(inSet, dropped, "every record of the partitions removed, counted once");
            data.assertHeldExactly(a.node, p -> !set.contains(p), label + ", A after drop");
            data.assertHeldExactly(b.node, set::contains, label + ", B after A's drop");
        }
    }

    @Test
    void pull_collectionsNotOpenedSinceRestart_areExported() throws Exception {
        ReferenceContents data = ReferenceContents.random(SEED + 1, 1_000, 200);
        int[] all = IntStream.range(0, Partitions.COUNT).toArray();
        try (TestShard a = new TestShard(dirA, NodeState.standalone())) {
            data.loadInto(a.node);
        }
        // A fresh process on the same data directory has opened nothing yet.
        try (TestShard a = new TestShard(dirA, NodeState.standalone());
             TestShard b = new TestShard(dirB, NodeState.standalone())) {
            assertEquals(data.records(p -> true), new PartitionPuller(b.node).pull(a.target(), all, n -> { }));
            data.assertHeldExactly(b.node, p -> true, "B after pulling everything");
        }
    }

    private static long exported(TestShard node, int[] partitions) {
        long records = 0;
        Iterator<ExportChunk> chunks = node.control().exportPartitions(PartitionsRequest.newBuilder().addAllPartitions(boxed(partitions)).build());
        while (chunks.hasNext()) {
            ExportChunk c = chunks.next();
            assertTrue(c.getBucketTablesCount() + c.getIdsCount() + c.getAttachIdsCount() + c.getContentHashesCount()
                    + c.getTextIdsCount() + c.getUrlHashesCount() <= PartitionExport.MAX_RECORDS, "chunks are bounded");
            records += c.getBucketTablesCount() + c.getIdsCount() + c.getAttachIdsCount() + c.getContentHashesCount()
                    + c.getTextIdsCount() + c.getUrlHashesCount();
        }
        return records;
    }

    static List<Integer> boxed(int[] partitions) {
        return IntStream.of(partitions).boxed().toList();
    }
}
