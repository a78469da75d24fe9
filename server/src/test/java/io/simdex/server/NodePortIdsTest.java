package io.simdex.server;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.simdex.proto.v1.ShardIdsRequest;
import io.simdex.proto.v1.ShardStatsRequest;
import io.simdex.proto.v1.ShardTextsRequest;
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
