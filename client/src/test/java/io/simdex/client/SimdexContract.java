package io.simdex.client;

import io.grpc.BindableService;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.simdex.proto.v1.Document;
import io.simdex.proto.v1.InsertRequest;
import io.simdex.proto.v1.SimdexGrpc;
import io.simdex.proto.v1.StatsRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the client tests rely on from a Simdex server: status codes and the wording tests
 * assert. Each test runs against the fake ({@link FakeSimdexContractTest}) and against the real
 * router service over an embedded store ({@link RouterSimdexContractTest}), so a fake cannot
 * drift from the server it stands in for.
 */
abstract class SimdexContract {
    @TempDir
    Path dir;

    private InProcessServer server;
    SimdexClient client;
    SimdexGrpc.SimdexBlockingStub stub;

    /** The service under test, with its data (if any) under {@code dir}. */
    abstract BindableService start(Path dir) throws Exception;

    /** Releases what {@link #start} opened. */
    void stop() throws Exception {
    }

    @BeforeEach
    void open() throws Exception {
        server = InProcessServer.start(start(dir));
        client = SimdexClient.over(server.channel());
        stub = SimdexGrpc.newBlockingStub(server.channel());
    }

    @AfterEach
    void close() throws Exception {
        try {
            client.close();
            server.close();
        } finally {
            stop();
        }
    }

    @Test
    void deleteCollection_existedThenAbsent_defaultRefused() {
        client.createCollection("temp");
        assertTrue(client.deleteCollection("temp"));
        assertFalse(client.deleteCollection("temp"));
        assertEquals(Status.Code.NOT_FOUND, assertThrows(StatusRuntimeException.class,
                () -> stub.stats(StatsRequest.newBuilder().setCollection("temp").build())).getStatus().getCode());
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> client.deleteCollection("default"));
        assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode());
        assertTrue(e.getStatus().getDescription().contains("default collection always exists"), e.getStatus().getDescription());
    }

    @Test
    void bulkLoad_thousandDocs_countedAndStored() {
        BulkLoader loader = client.bulkLoader(null, 100);
        SimdexClientTest.docs(1_000).forEach(loader::add);

        assertEquals(1_000, loader.close());
        assertEquals(1_000, stub.stats(StatsRequest.getDefaultInstance()).getDocuments());
    }

    @Test
    void bulkLoad_rejectedDocument_statusSaysHowManyWereAccepted() {
        BulkLoader loader = client.bulkLoader(null, 100);

        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> {
            for (int i = 0; i < 1_000; i++) {
                loader.add(Doc.of(i == 250 ? FakeSimdex.REJECTED_ID : "d" + i, i));
            }
            loader.close();
        });

        assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode());
        assertTrue(e.getStatus().getDescription().contains("200 documents were accepted"), e.getMessage());
    }

    @Test
    void insert_unknownCollection_notFoundNamingIt() {
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> stub.insert(InsertRequest.newBuilder()
                .setCollection("missing").addDocuments(Document.newBuilder().setId("a").setFingerprint(1)).build()));

        assertEquals(Status.Code.NOT_FOUND, e.getStatus().getCode());
        assertEquals(FakeSimdex.notFound("missing"), e.getStatus().getDescription());
    }

    @Test
    void stats_unknownCollection_notFoundNamingIt() {
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class,
                () -> stub.stats(StatsRequest.newBuilder().setCollection("missing").build()));

        assertEquals(Status.Code.NOT_FOUND, e.getStatus().getCode());
        assertEquals(FakeSimdex.notFound("missing"), e.getStatus().getDescription());
    }

    @Test
    void insert_overBatchLimit_invalidArgument() {
        InsertRequest.Builder req = InsertRequest.newBuilder();
        for (int i = 0; i <= ClientOptions.SERVER_BATCH_LIMIT; i++) {
            req.addDocuments(Document.newBuilder().setId("d" + i).setFingerprint(i));
        }

        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> stub.insert(req.build()));

        assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode());
        assertTrue(e.getStatus().getDescription().contains("10001"), e.getMessage());
    }

    @Test
    void insert_emptyBatch_invalidArgument() {
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> stub.insert(InsertRequest.getDefaultInstance()));

        assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode());
    }
}
