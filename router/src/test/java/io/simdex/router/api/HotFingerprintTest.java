package io.simdex.router.api;

import com.google.protobuf.UInt32Value;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.simdex.proto.v1.DedupRequest;
import io.simdex.proto.v1.DedupResult;
import io.simdex.proto.v1.DeleteRequest;
import io.simdex.proto.v1.InsertRequest;
import io.simdex.proto.v1.Match;
import io.simdex.proto.v1.Probe;
import io.simdex.proto.v1.QueryRequest;
import io.simdex.proto.v1.QueryResult;
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

/**
 * A page copied a million times: one fingerprint with 1M ids, through the public API. Its
 * inserts, queries and deletes work as for any fingerprint; queries return a page of matches
 * and the total.
 */
class HotFingerprintTest {
    private static final long HOT = 0x0f0f_1234_5678_9abcL;
    private static final int COPIES = 1_000_000;
    private static final int BATCH = 10_000;
    /** Planted near HOT: distances 1, 3 and 4. */
    private static final long NEAR1 = HOT ^ 1L << 40;
    private static final long NEAR3 = HOT ^ 0b111L << 9;
    private static final long FAR4 = HOT ^ 0b1111L << 50;

    @TempDir
    Path dir;

    @Test
    void millionIdsOnOneFingerprint_insertQueryDeleteHalfRestartQuery() throws Exception {
        try (TestServer s = new TestServer(dir)) {
            for (int from = 0; from < COPIES; from += BATCH) {
                InsertRequest.Builder req = InsertRequest.newBuilder();
                for (int i = from; i < from + BATCH; i++) {
                    req.addDocuments(doc(copy(i), HOT));
                }
                assertEquals(BATCH, s.stub().insert(req.build()).getInserted());
            }
            s.stub().insert(InsertRequest.newBuilder().addDocuments(doc("near-1", NEAR1)).addDocuments(doc("near-3", NEAR3))
                    .addDocuments(doc("far-4", FAR4)).build());

            QueryResult five = query(s, HOT, 3, 5);
            assertEquals(5, five.getMatchesCount());
            assertEquals(COPIES + 2, five.getTotalMatches(), "every copy and near-1, near-3; not far-4");
            assertTrue(five.getMatchesList().stream().allMatch(m -> m.getDistance() == 0 && m.getFingerprint() == HOT));
            assertEquals(five.getMatchesList().stream().map(Match::getId).sorted().toList(),
                    five.getMatchesList().stream().map(Match::getId).toList(), "ties by id");

            QueryResult byDefault = query(s, HOT, 3, 0);
            assertEquals(Validation.DEFAULT_LIMIT, byDefault.getMatchesCount(), "limit 0 is the server's default");
            assertEquals(COPIES + 2, byDefault.getTotalMatches());

            QueryResult fromNear = query(s, NEAR1, 1, 0);
            assertEquals(COPIES + 1, fromNear.getTotalMatches(), "near-1 itself and the copies, one bit away");
            assertEquals("near-1", fromNear.getMatches(0).getId(), "nearest first");

            StatusRuntimeException tooMany = assertThrows(StatusRuntimeException.class, () -> query(s, HOT, 3, 10_001));
            assertEquals(Status.Code.INVALID_ARGUMENT, tooMany.getStatus().getCode());
            assertTrue(tooMany.getStatus().getDescription().contains("limit 10001"), tooMany.getStatus().getDescription());

            DedupResult dup = s.stub().dedup(DedupRequest.newBuilder().setMaxDistance(UInt32Value.of(3)).setLimit(10)
                    .addDocuments(doc("one-more", HOT ^ 1L)).build()).getResults(0);
            assertFalse(dup.getInserted());
            assertEquals(10, dup.getDuplicatesCount());
            assertEquals(COPIES + 1, dup.getTotalMatches(), "the copies and near-1 (2 bits); near-3 is 4 bits away");

            for (int from = 0; from < COPIES; from += 2 * BATCH) {
                DeleteRequest.Builder req = DeleteRequest.newBuilder();
                for (int i = from; i < from + 2 * BATCH; i += 2) {
                    req.addIds(copy(i));
                }
                assertEquals(BATCH, s.stub().delete(req.build()).getDeleted());
            }
            assertEquals(COPIES / 2 + 2, query(s, HOT, 3, 1).getTotalMatches());
        }
        try (TestServer s = new TestServer(dir)) {
            QueryResult after = query(s, HOT, 3, 1_000);
            assertEquals(COPIES / 2 + 2, after.getTotalMatches(), "the same after a restart");
            assertEquals(1_000, after.getMatchesCount());
            assertTrue(after.getMatchesList().stream().filter(m -> m.getDistance() == 0)
                    .allMatch(m -> Integer.parseInt(m.getId().substring(5)) % 2 == 1), "only odd copies are left");
            assertEquals(COPIES / 2 + 3, Calls.stats(s.stub()).getDocuments());
            // Insert is idempotent by id: a copy stored again changes nothing.
            s.stub().insert(InsertRequest.newBuilder().addDocuments(doc(copy(1), HOT)).build());
            assertEquals(COPIES / 2 + 3, Calls.stats(s.stub()).getDocuments());
            assertEquals(COPIES / 2 + 2, query(s, HOT, 3, 1).getTotalMatches());
        }
    }

    private static String copy(int i) {
        return String.format("copy-%07d", i);
    }

    private static QueryResult query(TestServer s, long fp, int k, int limit) {
        return s.stub().query(QueryRequest.newBuilder().setMaxDistance(UInt32Value.of(k)).setLimit(limit)
                .addProbes(Probe.newBuilder().setFingerprint(fp)).build()).getResults(0);
    }
}
