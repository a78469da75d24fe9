package io.simdex.router.api;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.simdex.proto.v1.CollectionSettings;
import io.simdex.proto.v1.CreateCollectionRequest;
import io.simdex.proto.v1.DeleteRequest;
import io.simdex.proto.v1.ExportRequest;
import io.simdex.proto.v1.ExportResponse;
import io.simdex.proto.v1.ExportedDocument;
import io.simdex.proto.v1.InsertRequest;
import io.simdex.router.ManualClock;
import io.simdex.router.TestServer;
import io.simdex.router.index.ExportCursor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static io.simdex.router.Calls.assertSameBindings;
import static io.simdex.router.Calls.doc;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Export: every stored document once, page by page, against the documents the test stored. */
class ExportTest {
    @TempDir
    Path dir;

    private final ManualClock clock = new ManualClock(Instant.parse("2026-11-22T00:00:00Z"));

    @Test
    void export_givesEveryDocumentOnce_withItsFingerprint_inPagesOfAtMostPageSize() throws Exception {
        // 2 shards sized for 10,000 hold 30,000: each id map has grown to three generations.
        try (TestServer s = new TestServer(dir, clock)) {
            Map<String, Long> stored = insert(s, "", 0, 30_000, new SplittableRandom(1));
            for (int pageSize : new int[] {6_000, 1}) {
                List<ExportResponse> pages = new ArrayList<>();
                Map<String, Long> exported = exportAll(s, "", pageSize, pages);
                assertSameBindings(stored, exported, "page size " + pageSize);
                if (pageSize == 6_000) { // larger than any segment: no page passes it
                    pages.forEach(p -> assertTrue(p.getDocumentsCount() <= 6_000, "a page of " + p.getDocumentsCount()));
                } else { // each page is one segment's bindings, at least
                    assertTrue(pages.size() < 30_000, pages.size() + " pages");
                }
                assertTrue(pages.get(pages.size() - 1).getNextCursor().isEmpty());
            }
        }
    }

    @Test
    void export_whileDocumentsAreInsertedAndDeleted_givesEveryUnchangedDocumentExactlyOnce() throws Exception {
        try (TestServer s = new TestServer(dir, clock)) {
            SplittableRandom rnd = new SplittableRandom(2);
            Map<String, Long> steady = insert(s, "", 0, 20_000, rnd);
            Map<String, Long> volatileDocs = insert(s, "", 20_000, 5_000, rnd);
            Map<String, Integer> seen = new HashMap<>();
            String cursor = "";
            int next = 25_000;
            int deleted = 20_000;
            do {
                ExportResponse page = s.stub().export(ExportRequest.newBuilder().setCursor(cursor).setPageSize(500).build());
                for (ExportedDocument d : page.getDocumentsList()) {
                    seen.merge(d.getId(), 1, Integer::sum);
                    if (steady.containsKey(d.getId())) {
                        assertEquals(steady.get(d.getId()), d.getFingerprint(), d.getId());
                    }
                }
                cursor = page.getNextCursor();
                // Meanwhile: 100 documents deleted, 100 new ones stored.
                List<String> gone = new ArrayList<>();
                for (int i = 0; i < 100 && deleted < 25_000; i++) {
                    gone.add("d" + deleted++);
                }
                if (!gone.isEmpty()) {
                    s.stub().delete(DeleteRequest.newBuilder().addAllIds(gone).build());
                }
                insert(s, "", next, 100, rnd);
                next += 100;
            } while (!cursor.isEmpty());
            for (String id : steady.keySet()) {
                assertEquals(1, seen.getOrDefault(id, 0), id + " was stored throughout");
            }
            seen.forEach((id, n) -> assertEquals(1, n, id + " exported " + n + " times"));
            int stored = next;
            assertTrue(seen.keySet().stream().allMatch(id -> Integer.parseInt(id.substring(1)) < stored), "only ids the test stored");
            assertEquals(5_000, volatileDocs.size());
        }
    }

    @Test
    void export_ofARetentionCollection_givesItsLiveGenerations() throws Exception {
        try (TestServer s = new TestServer(dir, clock)) {
            s.stub().createCollection(CreateCollectionRequest.newBuilder().setName("recent").setSettings(
                    CollectionSettings.newBuilder().setRetentionSeconds(3600).setGenerationSeconds(600)).build());
            s.stub().insert(InsertRequest.newBuilder().setCollection("recent").addDocuments(doc("a", 1L)).addDocuments(doc("b", 2L)).build());
            clock.advance(Duration.ofMinutes(30));
            s.stub().insert(InsertRequest.newBuilder().setCollection("recent").addDocuments(doc("a", 3L)).addDocuments(doc("c", 4L)).build());
            List<ExportedDocument> all = new ArrayList<>();
            String cursor = "";
            do {
                ExportResponse page = s.stub().export(ExportRequest.newBuilder().setCollection("recent").setCursor(cursor).build());
                all.addAll(page.getDocumentsList());
                cursor = page.getNextCursor();
            } while (!cursor.isEmpty());
            // a moved to the newer generation with its new fingerprint; b stayed in the older one.
            assertEquals(List.of(exported("a", 3L), exported("b", 2L), exported("c", 4L)), sorted(all));

            clock.advance(Duration.ofMinutes(50)); // the first generation has left the window
            assertEquals(Map.of("a", 3L, "c", 4L), exportAll(s, "recent", 0, new ArrayList<>()));
        }
    }

    @Test
    void export_ofAnEmptyCollection_isOneEmptyLastPage() throws Exception {
        try (TestServer s = new TestServer(dir, clock)) {
            ExportResponse page = s.stub().export(ExportRequest.getDefaultInstance());
            assertEquals(0, page.getDocumentsCount());
            assertTrue(page.getNextCursor().isEmpty());
        }
    }

    @Test
    void export_badInput_namesWhatIsWrong_andAStaleCursorIsAborted() throws Exception {
        try (TestServer s = new TestServer(dir, clock)) {
            insert(s, "", 0, 3_000, new SplittableRandom(3));
            s.stub().createCollection(CreateCollectionRequest.newBuilder().setName("other").build());
            String cursor = s.stub().export(ExportRequest.newBuilder().setPageSize(10).build()).getNextCursor();
            assertTrue(!cursor.isEmpty());

            assertRefused(s, Status.Code.INVALID_ARGUMENT, "page_size 10001 outside 0..10000 (0: 1000)",
                    ExportRequest.newBuilder().setPageSize(10_001));
            assertRefused(s, Status.Code.INVALID_ARGUMENT, "cursor is not one Export gave (not base64url)",
                    ExportRequest.newBuilder().setCursor("not a cursor!"));
            assertRefused(s, Status.Code.INVALID_ARGUMENT, "cursor is not one Export gave (cut short)",
                    ExportRequest.newBuilder().setCursor(cursor.substring(0, cursor.length() / 2)));
            assertRefused(s, Status.Code.INVALID_ARGUMENT, "cursor is of an export of collection \"default\", not of \"other\"",
                    ExportRequest.newBuilder().setCollection("other").setCursor(cursor));
            assertRefused(s, Status.Code.NOT_FOUND, null, ExportRequest.newBuilder().setCollection("nope"));

            ExportCursor c = ExportCursor.decode(cursor);
            String moved = new ExportCursor(c.placement() + 1, c.collection(), c.group(), c.node(), c.generation(), c.mapGeneration(),
                    c.segment()).encode();
            assertRefused(s, Status.Code.ABORTED, "partitions moved since the export began: start it again without a cursor",
                    ExportRequest.newBuilder().setCursor(moved));
            String noGroup = new ExportCursor(c.placement(), c.collection(), 7, c.node(), 0, 0, 0).encode();
            assertRefused(s, Status.Code.ABORTED, "the cursor names shard group 7 of 2: start the export again",
                    ExportRequest.newBuilder().setCursor(noGroup));
            // The cursor still works after the refusals.
            assertTrue(s.stub().export(ExportRequest.newBuilder().setCursor(cursor).setPageSize(10).build()).getDocumentsCount() > 0);
        }
    }

    private static void assertRefused(TestServer s, Status.Code code, String message, ExportRequest.Builder request) {
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> s.stub().export(request.build()));
        assertEquals(code, e.getStatus().getCode(), String.valueOf(e.getStatus()));
        if (message != null) {
            assertEquals(message, e.getStatus().getDescription());
        }
    }

    static Map<String, Long> insert(TestServer s, String collection, int first, int count, SplittableRandom rnd) {
        Map<String, Long> stored = new HashMap<>();
        for (int from = first; from < first + count; from += 5_000) {
            InsertRequest.Builder b = InsertRequest.newBuilder().setCollection(collection);
            for (int i = from; i < Math.min(first + count, from + 5_000); i++) {
                long fp = rnd.nextLong();
                b.addDocuments(doc("d" + i, fp));
                stored.put("d" + i, fp);
            }
            s.stub().insert(b.build());
        }
        return stored;
    }

    private static Map<String, Long> exportAll(TestServer s, String collection, int pageSize, List<ExportResponse> pages) {
        Map<String, Long> out = new HashMap<>();
        String cursor = "";
        do {
            ExportResponse page = s.stub().export(ExportRequest.newBuilder().setCollection(collection).setCursor(cursor).setPageSize(pageSize).build());
            pages.add(page);
            for (ExportedDocument d : page.getDocumentsList()) {
                Long before = out.put(d.getId(), d.getFingerprint());
                assertEquals(null, before, d.getId() + " exported twice");
            }
            cursor = page.getNextCursor();
        } while (!cursor.isEmpty());
        return out;
    }

    private static ExportedDocument exported(String id, long fp) {
        return ExportedDocument.newBuilder().setId(id).setFingerprint(fp).build();
    }

    private static List<ExportedDocument> sorted(List<ExportedDocument> docs) {
        List<ExportedDocument> out = new ArrayList<>(docs);
        out.sort(java.util.Comparator.comparing(ExportedDocument::getId));
        return out;
    }
}
