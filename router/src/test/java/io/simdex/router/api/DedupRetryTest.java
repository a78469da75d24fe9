package io.simdex.router.api;

import com.google.protobuf.UInt32Value;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.simdex.proto.v1.DedupRequest;
import io.simdex.proto.v1.DedupResponse;
import io.simdex.proto.v1.DedupResult;
import io.simdex.proto.v1.InsertRequest;
import io.simdex.router.Calls;
import io.simdex.router.TestServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static io.simdex.router.Calls.doc;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Dedup sent again after it succeeded (its response lost, say) converges instead of reporting documents as their own duplicates. */
class DedupRetryTest {
    private static final long A = 0x1111_2222_3333_4444L;
    private static final long B = ~A;

    @TempDir
    Path dir;

    @Test
    void retriedDedup_reportsItsStoredDocumentsInserted_andOthersStillDuplicates() throws Exception {
        try (TestServer s = new TestServer(dir)) {
            DedupRequest first = DedupRequest.newBuilder().setMaxDistance(UInt32Value.of(3))
                    .addDocuments(doc("a", A)).addDocuments(doc("b", B)).addDocuments(doc("a-copy", A ^ 0b11)).build();
            DedupResponse once = s.stub().dedup(first);
            assertTrue(once.getResults(0).getInserted());
            assertTrue(once.getResults(1).getInserted());
            assertFalse(once.getResults(2).getInserted(), "2 bits from a, kept earlier in the request");
            assertEquals("a", once.getResults(2).getDuplicates(0).getId());
            assertEquals(1, once.getResults(2).getTotalMatches());

            DedupResponse again = s.stub().dedup(first);
            for (int i = 0; i < 2; i++) {
                DedupResult r = again.getResults(i);
                assertTrue(r.getInserted(), r.getId() + ": stored by the first attempt, reported stored");
                assertEquals(0, r.getDuplicatesCount());
                assertEquals(0, r.getTotalMatches());
            }
            assertFalse(again.getResults(2).getInserted(), "a-copy is still a duplicate of a");
            assertEquals(2, Calls.stats(s.stub()).getDocuments(), "nothing stored twice");

            DedupResult sameIdOtherContent = s.stub().dedup(DedupRequest.newBuilder().setMaxDistance(UInt32Value.of(3))
                    .addDocuments(doc("a", A ^ 1)).build()).getResults(0);
            assertFalse(sameIdOtherContent.getInserted(), "a new version of a near its old one is a duplicate of it");
            assertEquals("a", sameIdOtherContent.getDuplicates(0).getId());
        }
    }

    @Test
    void limit_cutsTheReportedDuplicates_notTheTotal_andAnOutOfRangeLimitWritesNothing() throws Exception {
        try (TestServer s = new TestServer(dir)) {
            InsertRequest.Builder copies = InsertRequest.newBuilder();
            for (int i = 0; i < 5; i++) {
                copies.addDocuments(doc("c" + i, A));
            }
            s.stub().insert(copies.build());
            DedupResult r = s.stub().dedup(DedupRequest.newBuilder().setMaxDistance(UInt32Value.of(3)).setLimit(2)
                    .addDocuments(doc("new", A ^ 1)).build()).getResults(0);
            assertFalse(r.getInserted());
            assertEquals(2, r.getDuplicatesCount());
            assertEquals("c0", r.getDuplicates(0).getId(), "ties by id");
            assertEquals(5, r.getTotalMatches());
            StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> s.stub().dedup(DedupRequest.newBuilder()
                    .setLimit(20_000).addDocuments(doc("never", B)).build()));
            assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode());
            assertTrue(e.getStatus().getDescription().startsWith("limit 20000 outside 0..10000"), e.getStatus().getDescription());
            assertEquals(5, Calls.stats(s.stub()).getDocuments(), "the refused request wrote nothing");
        }
    }
}
