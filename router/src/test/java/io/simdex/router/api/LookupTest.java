package io.simdex.router.api;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.simdex.proto.v1.CollectionSettings;
import io.simdex.proto.v1.CreateCollectionRequest;
import io.simdex.proto.v1.DeleteRequest;
import io.simdex.proto.v1.InsertRequest;
import io.simdex.proto.v1.LookupRequest;
import io.simdex.proto.v1.LookupResult;
import io.simdex.router.ManualClock;
import io.simdex.router.TestServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static io.simdex.router.Calls.doc;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Lookup by id: what each id is stored with, in the collection's live generations. */
class LookupTest {
    @TempDir
    Path dir;

    private final ManualClock clock = new ManualClock(Instant.parse("2026-11-22T00:00:00Z"));

    @Test
    void lookup_answersEachIdsFingerprint_followsMovesAndDeletes() throws Exception {
        try (TestServer s = new TestServer(dir, clock)) {
            s.stub().insert(InsertRequest.newBuilder().addDocuments(doc("a", 0x0123456789abcdefL)).addDocuments(doc("b", -2L)).build());
            assertEquals(List.of(result("a", true, 0x0123456789abcdefL), result("nobody", false, 0), result("b", true, -2L)),
                    lookup(s, "", "a", "nobody", "b"));

            s.stub().insert(InsertRequest.newBuilder().addDocuments(doc("a", 0x7777L)).build());
            s.stub().delete(DeleteRequest.newBuilder().addIds("b").build());
            assertEquals(List.of(result("a", true, 0x7777L), result("b", false, 0)), lookup(s, "", "a", "b"), "moved, deleted");
        }
    }

    @Test
    void lookup_seesOnlyTheRetentionWindow() throws Exception {
        try (TestServer s = new TestServer(dir, clock)) {
            s.stub().createCollection(CreateCollectionRequest.newBuilder().setName("recent").setSettings(
                    CollectionSettings.newBuilder().setRetentionSeconds(3600).setGenerationSeconds(600)).build());
            s.stub().insert(InsertRequest.newBuilder().setCollection("recent").addDocuments(doc("old", 5L)).build());
            clock.advance(Duration.ofMinutes(30));
            s.stub().insert(InsertRequest.newBuilder().setCollection("recent").addDocuments(doc("new", 6L)).build());
            assertEquals(List.of(result("old", true, 5L), result("new", true, 6L)), lookup(s, "recent", "old", "new"));

            clock.advance(Duration.ofMinutes(50));
            assertEquals(List.of(result("old", false, 0), result("new", true, 6L)), lookup(s, "recent", "old", "new"),
                    "an id stored before the window is not found");
        }
    }

    @Test
    void lookup_badInput_namesWhatIsWrong() throws Exception {
        try (TestServer s = new TestServer(dir, clock)) {
            StatusRuntimeException empty = assertThrows(StatusRuntimeException.class, () -> lookup(s, "", "a", ""));
            assertEquals(Status.Code.INVALID_ARGUMENT, empty.getStatus().getCode());
            assertEquals(true, empty.getStatus().getDescription().startsWith("ids[1]"), empty.getStatus().getDescription());
            assertEquals(Status.Code.INVALID_ARGUMENT, assertThrows(StatusRuntimeException.class, () -> lookup(s, "")).getStatus().getCode());
            assertEquals(Status.Code.NOT_FOUND, assertThrows(StatusRuntimeException.class, () -> lookup(s, "nope", "a")).getStatus().getCode());
        }
    }

    private static List<LookupResult> lookup(TestServer s, String collection, String... ids) {
        return s.stub().lookup(LookupRequest.newBuilder().setCollection(collection).addAllIds(List.of(ids)).build()).getResultsList();
    }

    private static LookupResult result(String id, boolean found, long fp) {
        return LookupResult.newBuilder().setId(id).setFound(found).setFingerprint(fp).build();
    }
}
