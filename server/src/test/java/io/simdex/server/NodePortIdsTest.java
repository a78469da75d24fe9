package io.simdex.server;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.simdex.proto.v1.ShardIdsRequest;
import io.simdex.proto.v1.ShardStatsRequest;
import io.simdex.proto.v1.ShardTextsRequest;
import io.simdex.proto.v1.ShardWriteIdsRequest;
import io.simdex.proto.v1.ShardWriteIdsResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Ids given at a node's own port, past any router: the node holds them to the router's rule, and stores as many as it is sent. */
class NodePortIdsTest {
    @TempDir
    Path tmp;

    @Test
    void writesWithABadId_invalidArgumentNamingIt_nothingBound() throws Exception {
        try (TestShard shard = new TestShard(tmp.resolve("node"), NodeState.standalone())) {
            for (String bad : List.of("", "a".repeat(257), "\u4e2d".repeat(86), "a\u0000b", "line\n", "\u00020123456789abcdeg")) {
                List<String> ids = List.of("good", bad);
                ShardIdsRequest req = ShardIdsRequest.newBuilder().setCollection("c").addAllIds(ids).addFingerprints(1).addFingerprints(2).build();
                refused("ids[1]", () -> shard.stub().bindIds(req));
                refused("ids[1]", () -> shard.stub().attachIds(req));
                refused("ids[1]", () -> shard.stub().putTexts(ShardTextsRequest.newBuilder().setCollection("c").addAllIds(ids)
                        .addTexts("one").addTexts("two").build()));
            }
            assertEquals(0, documents(shard), "the good id of each refused request was not bound either");
        }
    }

    @Test
    void writeIds_aBadPart_invalidArgumentNamingIt_neitherPartWritten() throws Exception {
        try (TestShard shard = new TestShard(tmp.resolve("node"), NodeState.standalone())) {
            ShardWriteIdsRequest good = ShardWriteIdsRequest.newBuilder().setCollection("c")
                    .addBindIds("a").addBindFingerprints(1).addAttachIds("b").addAttachFingerprints(2).build();
            refused("bind_ids[0]", () -> shard.stub().writeIds(good.toBuilder().setBindIds(0, "").build()));
            refused("attach_ids[0]", () -> shard.stub().writeIds(good.toBuilder().setAttachIds(0, "line\n").build()));
            refused("bind_ids: 1 ids but 2 fingerprints", () -> shard.stub().writeIds(good.toBuilder().addBindFingerprints(3).build()));
            refused("attach_ids: 2 ids but 1 fingerprints", () -> shard.stub().writeIds(good.toBuilder().addAttachIds("c").build()));
            refused("attach_as_bind with 1 attach ids", () -> shard.stub().writeIds(good.toBuilder().setAttachAsBind(true).build()));
            assertEquals(0, documents(shard), "no id bound");
            assertEquals(0, shard.node.resolveIds("c", new long[]{0, 0}, new long[]{1, 2}, 0)[1].total(), "no id attached");
        }
    }

    @Test
    void writeIds_bindsThenAttaches_eachPartAnsweredAsItsOwnCall() throws Exception {
        try (TestShard shard = new TestShard(tmp.resolve("node"), NodeState.standalone())) {
            // The attach part given as the bind part: each pair once.
            ShardWriteIdsResponse first = shard.stub().writeIds(ShardWriteIdsRequest.newBuilder().setCollection("c").setGeneration(0)
                    .addBindIds("a").addBindFingerprints(1).addBindIds("b").addBindFingerprints(1).setAttachAsBind(true).build());
            assertEquals(List.of(false, false), first.getBound().getPresentList());
            assertEquals(List.of(true, false), first.getAttachedList(), "fingerprint 1 had no ids before a, and had a before b");
            // Parts of their own: a moves to fingerprint 2 (its bind says where it was), c joins fingerprint 1.
            ShardWriteIdsResponse second = shard.stub().writeIds(ShardWriteIdsRequest.newBuilder().setCollection("c").setGeneration(0)
                    .addBindIds("a").addBindFingerprints(2).addAttachIds("a").addAttachFingerprints(2).addAttachIds("c").addAttachFingerprints(1)
                    .build());
            assertEquals(List.of(true), second.getBound().getPresentList());
            assertEquals(List.of(1L), second.getBound().getPreviousList());
            assertEquals(List.of(true, false), second.getAttachedList());
            assertEquals(List.of("a", "b", "c"), List.of(shard.node.resolveIds("c", new long[]{0}, new long[]{1}, 0)[0].ids()).stream().sorted().toList(),
                    "detaching a from 1 is the router's next step, not WriteIds'");
            assertEquals(List.of("a"), List.of(shard.node.resolveIds("c", new long[]{0}, new long[]{2}, 0)[0].ids()));
        }
    }

    @Test
    void fingerprintSketchKey_takenByPutTexts_refusedAsAnId() throws Exception {
        String key = io.simdex.server.store.FingerprintSketch.key(0x0123_4567_89ab_cdefL);
        try (TestShard shard = new TestShard(tmp.resolve("node"), NodeState.standalone())) {
            ShardIdsRequest req = ShardIdsRequest.newBuilder().setCollection("c").addIds(key).addFingerprints(1).build();
            refused("ids[0]", () -> shard.stub().bindIds(req));
            String sketch = "\u0000" + "0123456789".repeat(6);
            assertEquals(1, shard.stub().putTexts(ShardTextsRequest.newBuilder().setCollection("c").addIds(key).addTexts(sketch).build())
                    .getChanged());
            assertEquals(sketch, shard.node.getTexts("c", new long[]{0}, new String[]{key})[0]);
        }
    }

    @Test
    void bindIds_tenThousandIdsOfTheMaximumLength_allBound_evenInMapsSizedForShortIds() throws Exception {
        // TestShard sizes the id maps for 16,000 ids of 12 bytes: 10,001 of 256 bytes fill the first file by bytes.
        String longest = "\u4e2d".repeat(85) + "a";
        assertEquals(256, longest.getBytes(StandardCharsets.UTF_8).length);
        try (TestShard shard = new TestShard(tmp.resolve("node"), NodeState.standalone())) {
            ShardIdsRequest.Builder req = ShardIdsRequest.newBuilder().setCollection("c");
            List<String> ids = new ArrayList<>();
            for (int i = 0; i < 10_001; i++) {
                String id = String.format("%05d", i) + longest.substring(5);
                ids.add(id);
                req.addIds(id).addFingerprints(i);
            }
            assertEquals(10_001, shard.stub().bindIds(req.build()).getPresentCount());
            assertEquals(10_001, documents(shard));
            for (String id : List.of(ids.get(0), ids.get(5_000), ids.get(10_000))) {
                assertTrue(shard.node.bindIds("c", 0, new String[]{id}, new long[]{7}).present()[0], id + " was bound");
            }
        }
    }

    private static long documents(TestShard shard) {
        return shard.stub().stats(ShardStatsRequest.newBuilder().setCollection("c").build()).getDocuments();
    }

    private static void refused(String field, Executable call) {
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, call);
        assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode(), e::toString);
        assertTrue(e.getStatus().getDescription().startsWith(field), e::toString);
    }
}
