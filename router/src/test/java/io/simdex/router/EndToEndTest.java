package io.simdex.router;

import com.google.protobuf.UInt32Value;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;
import io.simdex.proto.v1.BulkLoadRequest;
import io.simdex.proto.v1.BulkLoadResponse;
import io.simdex.proto.v1.DedupRequest;
import io.simdex.proto.v1.DedupResponse;
import io.simdex.proto.v1.DeleteRequest;
import io.simdex.proto.v1.Document;
import io.simdex.proto.v1.InsertRequest;
import io.simdex.proto.v1.Match;
import io.simdex.proto.v1.Probe;
import io.simdex.proto.v1.QueryRequest;
import io.simdex.proto.v1.QueryResponse;
import io.simdex.proto.v1.SimdexGrpc;
import io.simdex.proto.v1.StatsRequest;
import io.simdex.proto.v1.StatsResponse;
import io.simdex.router.index.BulkAppends;
import io.simdex.router.transport.PublicServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static io.simdex.router.Calls.doc;
import static io.simdex.router.Calls.observer;
import static io.simdex.router.Calls.query;
import static io.simdex.router.Calls.stats;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The whole path over real gRPC on a real socket, 4 shards on Chronicle Map files, against brute force. */
class EndToEndTest {
    @TempDir
    Path dir;

    private static final Corpus CORPUS = new Corpus(200_000, 1_000, 42);

    @Test
    void query_200kPlanted_matchesBruteForce_thenAfterDeleteAndRestart() throws Exception {
        Set<String> deleted = new HashSet<>();
        try (TestServer server = new TestServer(dir)) {
            insertAll(server.stub());
            assertEquals(CORPUS.ids.size(), stats(server.stub()).getDocuments());
            assertQueriesMatchBruteForce(server.stub(), deleted);

            // Delete every 7th planted document; the rest must still be found, those never.
            DeleteRequest.Builder del = DeleteRequest.newBuilder();
            for (int i = 200_000; i < CORPUS.ids.size(); i += 7) {
                del.addIds(CORPUS.ids.get(i));
                deleted.add(CORPUS.ids.get(i));
            }
            del.addIds("no-such-id");
            var r = server.stub().delete(del.build());
            assertEquals(deleted.size(), r.getDeleted());
            assertEquals(1, r.getNotFound());
            assertQueriesMatchBruteForce(server.stub(), deleted);
        }
        try (TestServer server = new TestServer(dir)) {
            assertEquals(CORPUS.ids.size() - deleted.size(), stats(server.stub()).getDocuments());
            assertQueriesMatchBruteForce(server.stub(), deleted);
        }
    }

    @Test
    void insert_existingIdNewFingerprint_movesTheId() throws Exception {
        try (TestServer server = new TestServer(dir)) {
            var stub = server.stub();
            stub.insert(InsertRequest.newBuilder().addDocuments(doc("a", 0x1111_2222_3333_4444L)).build());
            stub.insert(InsertRequest.newBuilder().addDocuments(doc("a", 0x5555_6666_7777_8888L)).build());
            assertTrue(query(stub, 0x1111_2222_3333_4444L, 3).isEmpty());
            assertEquals(List.of("a"), query(stub, 0x5555_6666_7777_8888L, 0).stream().map(Match::getId).toList());
            assertEquals(1, stats(stub).getDocuments());
            assertEquals(1, stats(stub).getFingerprints());
        }
    }

    @Test
    void dedup_batchWithNearDuplicates_keepsFirstOfEachGroup() throws Exception {
        try (TestServer server = new TestServer(dir)) {
            var stub = server.stub();
            stub.insert(InsertRequest.newBuilder().addDocuments(doc("old", 0xF0F0_0000_0000_0000L)).build());
            DedupResponse r = stub.dedup(DedupRequest.newBuilder().setMaxDistance(UInt32Value.of(3))
                    .addDocuments(doc("x1", 0x0000_0000_0000_00FFL))
                    .addDocuments(doc("x2", 0x0000_0000_0000_00F8L))          // 3 from x1: dup of x1
                    .addDocuments(doc("x3", 0x0000_0000_0000_000FL))          // 4 from x1, 1 from... none kept: kept
                    .addDocuments(doc("y1", 0xF0F0_0000_0000_0007L))          // 3 from "old": dup
                    .build());
            assertTrue(r.getResults(0).getInserted());
            assertFalse(r.getResults(1).getInserted());
            assertEquals("x1", r.getResults(1).getDuplicates(0).getId());
            assertEquals(3, r.getResults(1).getDuplicates(0).getDistance());
            assertTrue(r.getResults(2).getInserted());
            assertFalse(r.getResults(3).getInserted());
            assertEquals("old", r.getResults(3).getDuplicates(0).getId());
            assertEquals(3, stats(stub).getDocuments());
            // A retried dedup finds the document itself, stored: reported inserted, stored once.
            DedupResponse again = stub.dedup(DedupRequest.newBuilder().setMaxDistance(UInt32Value.of(3)).addDocuments(doc("x1", 0xFFL)).build());
            assertTrue(again.getResults(0).getInserted());
            assertEquals(0, again.getResults(0).getDuplicatesCount());
            assertEquals(3, stats(stub).getDocuments());
        }
    }

    @Test
    void bulkLoad_streamOfBatches_insertsAll_findableOnceTheResponseArrives() throws Exception {
        try (TestServer server = new TestServer(dir)) {
            CompletableFuture<BulkLoadResponse> done = new CompletableFuture<>();
            StreamObserver<BulkLoadRequest> in = SimdexGrpc.newStub(server.channel).bulkLoad(observer(done));
            int batches = 0;
            for (int from = 0; from < CORPUS.ids.size(); from += 5000, batches++) {
                BulkLoadRequest.Builder req = BulkLoadRequest.newBuilder();
                for (int i = from; i < Math.min(from + 5000, CORPUS.ids.size()); i++) {
                    req.addDocuments(doc(CORPUS.ids.get(i), CORPUS.fps.get(i)));
                }
                in.onNext(req.build());
            }
            in.onCompleted();
            BulkLoadResponse r = done.get(60, TimeUnit.SECONDS);
            assertEquals(CORPUS.ids.size(), r.getInserted());
            assertEquals(batches, r.getBatches());
            assertEquals(CORPUS.ids.size(), stats(server.stub()).getDocuments());
            // Batch mode holds bucket appends back (BulkAppends); the response means all are applied.
            assertQueriesMatchBruteForce(server.stub(), Set.of());
            assertEquals(4L * stats(server.stub()).getFingerprints(), stats(server.stub()).getBucketEntries());
        }
    }

    private static void insertAll(SimdexGrpc.SimdexBlockingStub stub) {
        for (int from = 0; from < CORPUS.ids.size(); from += 10_000) {
            InsertRequest.Builder req = InsertRequest.newBuilder();
            for (int i = from; i < Math.min(from + 10_000, CORPUS.ids.size()); i++) {
                req.addDocuments(doc(CORPUS.ids.get(i), CORPUS.fps.get(i)));
            }
            stub.insert(req.build());
        }
    }

    private static void assertQueriesMatchBruteForce(SimdexGrpc.SimdexBlockingStub stub, Set<String> deleted) {
        for (int k = 0; k <= 3; k++) {
            for (int from = 0; from < CORPUS.probes.size(); from += 1000) {
                QueryRequest.Builder req = QueryRequest.newBuilder().setMaxDistance(UInt32Value.of(k));
                int to = Math.min(from + 1000, CORPUS.probes.size());
                for (int i = from; i < to; i++) {
                    req.addProbes(Probe.newBuilder().setFingerprint(CORPUS.probes.get(i)));
                }
                QueryResponse r = stub.query(req.build());
                for (int i = from; i < to; i++) {
                    long probe = CORPUS.probes.get(i);
                    TreeSet<String> got = new TreeSet<>();
                    for (Match m : r.getResults(i - from).getMatchesList()) {
                        got.add(m.getId() + "/" + Long.toHexString(m.getFingerprint()) + "/" + m.getDistance());
                    }
                    int kk = k;
                    assertEquals(CORPUS.within(probe, k, deleted), got, () -> "probe " + Long.toHexString(probe) + " k=" + kk);
                }
            }
        }
    }
}
