package io.simdex.router.api;

import com.google.protobuf.UInt32Value;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import io.simdex.proto.v1.BulkLoadRequest;
import io.simdex.proto.v1.BulkLoadResponse;
import io.simdex.proto.v1.CreateCollectionRequest;
import io.simdex.proto.v1.DedupRequest;
import io.simdex.proto.v1.DeleteRequest;
import io.simdex.proto.v1.Document;
import io.simdex.proto.v1.InsertRequest;
import io.simdex.proto.v1.Probe;
import io.simdex.proto.v1.QueryRequest;
import io.simdex.proto.v1.SimdexGrpc;
import io.simdex.proto.v1.StatsRequest;
import io.simdex.router.Calls;
import io.simdex.router.TestServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static io.simdex.router.Calls.doc;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every bad request gets a clear status, and the store is exactly as before it. */
class BadInputTest {
    @TempDir
    static Path dir;
    static TestServer server;
    static SimdexGrpc.SimdexBlockingStub stub;

    @BeforeAll
    static void start() {
        server = new TestServer(dir);
        stub = server.stub();
        stub.insert(InsertRequest.newBuilder().addDocuments(doc("kept", 0x0123_4567_89ab_cdefL)).build());
    }

    @AfterAll
    static void stop() throws InterruptedException {
        server.close();
    }

    @Test
    void insert_missingId_invalidArgumentNothingStored() {
        rejected(Status.Code.INVALID_ARGUMENT, "documents[1].id is empty", () -> stub.insert(InsertRequest.newBuilder()
                .addDocuments(doc("fine", 1L)).addDocuments(doc("", 2L)).build()));
    }

    @Test
    void insert_noContent_invalidArgument() {
        rejected(Status.Code.INVALID_ARGUMENT, "documents[0] has neither fingerprint nor text", () -> stub.insert(InsertRequest.newBuilder()
                .addDocuments(Document.newBuilder().setId("x")).build()));
    }

    @Test
    void insert_blankText_invalidArgument() {
        rejected(Status.Code.INVALID_ARGUMENT, "documents[1].text is blank", () -> stub.insert(InsertRequest.newBuilder()
                .addDocuments(doc("ok", 5L))
                .addDocuments(Document.newBuilder().setId("t").setText("  \n ")).build()));
    }

    @Test
    void insert_controlCharacterInId_invalidArgument() {
        rejected(Status.Code.INVALID_ARGUMENT, "control character", () -> stub.insert(InsertRequest.newBuilder()
                .addDocuments(doc("a\nb", 5L)).build()));
    }

    @Test
    void insert_overBatchLimit_invalidArgumentNothingStored() {
        InsertRequest.Builder req = InsertRequest.newBuilder();
        for (int i = 0; i <= Validation.MAX_BATCH; i++) {
            req.addDocuments(doc("big" + i, i));
        }
        rejected(Status.Code.INVALID_ARGUMENT, "more than the limit of 10000", () -> stub.insert(req.build()));
    }

    @Test
    void insert_emptyBatch_invalidArgument() {
        rejected(Status.Code.INVALID_ARGUMENT, "documents is empty", () -> stub.insert(InsertRequest.getDefaultInstance()));
    }

    @Test
    void insert_unknownCollection_notFound() {
        rejected(Status.Code.NOT_FOUND, "collection 'nope' does not exist", () -> stub.insert(InsertRequest.newBuilder()
                .setCollection("nope").addDocuments(doc("x", 1L)).build()));
    }

    @Test
    void insert_badCollectionName_invalidArgument() {
        rejected(Status.Code.INVALID_ARGUMENT, "collection 'a b'", () -> stub.insert(InsertRequest.newBuilder()
                .setCollection("a b").addDocuments(doc("x", 1L)).build()));
    }

    @Test
    void query_maxDistanceFour_invalidArgument() {
        rejected(Status.Code.INVALID_ARGUMENT, "max_distance 4 outside 0..3", () -> stub.query(QueryRequest.newBuilder()
                .setMaxDistance(UInt32Value.of(4)).addProbes(Probe.newBuilder().setFingerprint(1L)).build()));
    }

    @Test
    void dedup_maxDistanceFour_invalidArgumentNothingStored() {
        rejected(Status.Code.INVALID_ARGUMENT, "max_distance 4", () -> stub.dedup(DedupRequest.newBuilder()
                .setMaxDistance(UInt32Value.of(4)).addDocuments(doc("d", 99L)).build()));
    }

    @Test
    void delete_emptyId_invalidArgumentNothingDeleted() {
        rejected(Status.Code.INVALID_ARGUMENT, "ids[1] is empty", () -> stub.delete(DeleteRequest.newBuilder()
                .addIds("kept").addIds("").build()));
    }

    @Test
    void createCollection_badName_invalidArgument() {
        rejected(Status.Code.INVALID_ARGUMENT, "must be 1..64 characters", () -> stub.createCollection(
                CreateCollectionRequest.newBuilder().setName("x".repeat(65)).build()));
    }

    @Test
    void bulkLoad_badSecondBatch_firstStaysAndStatusSaysSo() throws Exception {
        CompletableFuture<BulkLoadResponse> done = new CompletableFuture<>();
        StreamObserver<BulkLoadRequest> in = SimdexGrpc.newStub(server.channel).bulkLoad(Calls.observer(done));
        in.onNext(BulkLoadRequest.newBuilder().addDocuments(doc("bulk-ok", 0x7777L)).build());
        in.onNext(BulkLoadRequest.newBuilder().addDocuments(doc("", 0x8888L)).build());
        in.onCompleted();
        ExecutionException e = assertThrows(ExecutionException.class, () -> done.get(30, TimeUnit.SECONDS));
        StatusRuntimeException s = assertInstanceOf(StatusRuntimeException.class, e.getCause());
        assertEquals(Status.Code.INVALID_ARGUMENT, s.getStatus().getCode());
        assertTrue(s.getStatus().getDescription().contains("after 1 documents were accepted"), s.getStatus().getDescription());
        assertEquals(1, Calls.query(stub, 0x7777L, 0).size());
        stub.delete(DeleteRequest.newBuilder().addIds("bulk-ok").build());
    }

    /** Asserts the status and message, and that the collection is exactly as before. */
    private static void rejected(Status.Code code, String messagePart, Executable call) {
        long before = stub.stats(StatsRequest.getDefaultInstance()).getDocuments();
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, call);
        assertEquals(code, e.getStatus().getCode(), e.getStatus().toString());
        assertTrue(e.getStatus().getDescription().contains(messagePart),
                () -> "'" + e.getStatus().getDescription() + "' should contain '" + messagePart + "'");
        assertEquals(before, stub.stats(StatsRequest.getDefaultInstance()).getDocuments());
        assertEquals(1, Calls.query(stub, 0x0123_4567_89ab_cdefL, 0).size(), "the stored document is untouched");
    }
}
