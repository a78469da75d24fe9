package io.simdex.server;

import io.simdex.core.Partitions;
import io.simdex.fingerprint.BlockTables;
import io.simdex.server.ReferenceContents.Doc;
import io.simdex.server.tls.PeerCredentials;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A node that missed deletes and rebinds (B, loaded with the records as they were) mirrors a
 * source that has them (A, loaded with the records as they are now), over loopback gRPC, and
 * is then checked record by record against the reference.
 */
class PartitionMirrorTest {
    private static final long SEED = 20261129L;
    private static final int[] ALL = IntStream.range(0, Partitions.COUNT).toArray();

    @TempDir
    Path dirA;
    @TempDir
    Path dirB;

    @Test
    void mirror_removesWhatTheSourceDeletedOrRebound_andHoldsExactlyWhatTheSourceHolds() throws Exception {
        ReferenceContents before = ReferenceContents.random(SEED, 3_000, 100);
        ReferenceContents after = changed(before, SEED, true, new ArrayList<>());
        try (TestShard a = new TestShard(dirA, NodeState.standalone());
             TestShard b = new TestShard(dirB, NodeState.standalone())) {
            after.loadInto(a.node);
            before.loadInto(b.node);
            PartitionMirror.Result r = new PartitionMirror(b.node, PeerCredentials.PLAINTEXT).mirror(a.target(), ALL, () -> { }, () -> true, n -> { });

            assertFalse(r.refused());
            assertTrue(r.removed() > 500, "removed " + r.removed());
            after.assertHeldExactly(b.node, p -> true, "B after mirroring A");
            after.assertHeldExactly(a.node, p -> true, "A as loaded");
            assertFalse(b.node.pulls().watching(), "the watch ends with the pull");
        }
    }

    @Test
    void mirror_keepsARecordWrittenHereWhileItSettles() throws Exception {
        ReferenceContents before = ReferenceContents.random(SEED + 1, 2_000, 10);
        List<Doc> deleted = new ArrayList<>();
        ReferenceContents after = changed(before, SEED + 1, false, deleted);
        Doc again = deleted.get(0);
        ReferenceContents expected = changed(before, SEED + 1, false, new ArrayList<>());
        expected.docs.add(again);
        before.texts.stream().filter(t -> t.id().equals(again.id())).forEach(expected.texts::add);
        try (TestShard a = new TestShard(dirA, NodeState.standalone());
             TestShard b = new TestShard(dirB, NodeState.standalone())) {
            after.loadInto(a.node);
            before.loadInto(b.node);
            PartitionMirror.Settle storeAgainHere = () -> {
                // A router stores the document again; B has it before A does.
                assertTrue(b.node.pulls().watching());
                for (int t = 0; t < BlockTables.TABLES; t++) {
                    b.node.bucketAdd(again.collection(), again.generation(), t, new long[]{again.fp()});
                }
                b.node.bindIds(again.collection(), again.generation(), new String[]{again.id()}, new long[]{again.fp()});
                b.node.attachIds(again.collection(), again.generation(), new long[]{again.fp()}, new String[]{again.id()});
            };
            PartitionMirror.Result r = new PartitionMirror(b.node, PeerCredentials.PLAINTEXT).mirror(a.target(), ALL, storeAgainHere, () -> true, n -> { });

            assertFalse(r.refused());
            expected.assertHeldExactly(b.node, p -> true, "B after mirroring, with the document stored again while it settled");
        }
    }

    @Test
    void mirror_sourceFellBehindOrLacksMostRecords_copiesButRemovesNothing() throws Exception {
        ReferenceContents before = ReferenceContents.random(SEED + 2, 2_000, 10);
        ReferenceContents after = changed(before, SEED + 2, false, new ArrayList<>());
        try (TestShard a = new TestShard(dirA, NodeState.standalone());
             TestShard b = new TestShard(dirB, NodeState.standalone());
             TestShard empty = new TestShard(dirA.resolve("empty"), NodeState.standalone())) {
            after.loadInto(a.node);
            before.loadInto(b.node);
            PartitionMirror mirror = new PartitionMirror(b.node, PeerCredentials.PLAINTEXT);

            PartitionMirror.Result behind = mirror.mirror(a.target(), ALL, () -> { }, () -> false, n -> { });
            assertTrue(behind.refused());
            assertEquals(0, behind.removed());
            before.assertHeldExactly(b.node, p -> true, "B after mirroring a source that fell behind");

            PartitionMirror.Result lacking = mirror.mirror(empty.target(), ALL, () -> fail(), () -> true, n -> { });
            assertTrue(lacking.refused());
            assertEquals(0, lacking.records());
            before.assertHeldExactly(b.node, p -> true, "B after mirroring an empty source");
        }
    }

    private static void fail() {
        throw new AssertionError("a refused mirror does not wait to remove");
    }

    /**
     * The records as a source that took more writes holds them: 5% of the documents deleted
     * (into {@code deleted}) and, with {@code rebind}, 3% of the ids moved to a new fingerprint
     * and 100 new documents. A delete or rebind takes the id's short text with it.
     */
    private static ReferenceContents changed(ReferenceContents before, long seed, boolean rebind, List<Doc> deleted) {
        SplittableRandom random = new SplittableRandom(seed);
        ReferenceContents after = new ReferenceContents();
        Set<String> gone = new HashSet<>();
        for (Doc d : before.docs) {
            int roll = random.nextInt(100);
            if (roll < 5) {
                deleted.add(d);
                gone.add(d.id());
            } else if (rebind && roll < 8) {
                after.docs.add(new Doc(d.collection(), d.generation(), d.id(), random.nextLong()));
                gone.add(d.id());
            } else {
                after.docs.add(d);
            }
        }
        for (int i = 0; rebind && i < 100; i++) {
            after.docs.add(new Doc("news", 0, "new-" + i, random.nextLong()));
        }
        after.contents.addAll(before.contents);
        before.texts.stream().filter(t -> !gone.contains(t.id())).forEach(after.texts::add);
        after.urls.addAll(before.urls);
        return after;
    }
}
