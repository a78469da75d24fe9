package io.simdex.router.metrics;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.simdex.proto.v1.CheckUrlsRequest;
import io.simdex.proto.v1.CreateCollectionRequest;
import io.simdex.proto.v1.DedupRequest;
import io.simdex.proto.v1.DeleteCollectionRequest;
import io.simdex.proto.v1.DeleteRequest;
import io.simdex.proto.v1.Document;
import io.simdex.proto.v1.InsertRequest;
import io.simdex.proto.v1.Probe;
import io.simdex.proto.v1.QueryRequest;
import io.simdex.proto.v1.SimdexGrpc;
import io.simdex.router.TestServer;
import io.simdex.router.index.SketchReads;
import io.simdex.server.tls.CertificatesInUse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The embedded default with a metrics port: real gRPC calls over a socket, then scrapes of
 * {@code /metrics} over HTTP show each call by method and status, and the store's documents.
 */
class MetricsEndpointTest {
    private static final String COUNT = "grpc_server_call_duration_seconds_count";
    private static final String INSERT = SimdexGrpc.getInsertMethod().getFullMethodName();
    private static final String QUERY = SimdexGrpc.getQueryMethod().getFullMethodName();
    private static final String DELETE = SimdexGrpc.getDeleteMethod().getFullMethodName();

    @TempDir
    Path dir;

    @Test
    void scrape_afterCalls_countsThemByMethodAndStatus_andTheStoredDocuments() throws Exception {
        try (TestServer server = new TestServer(dir, Clock.systemUTC())) {
            int port = server.simdex.serveMetrics("127.0.0.1", 0).port();
            SimdexGrpc.SimdexBlockingStub stub = server.stub();
            stub.insert(insert("a", 0x0123456789abcdefL, "b", 0x0f0f0f0f0f0f0f0fL));
            stub.insert(insert("c", 0x7777777777777777L));
            for (int i = 0; i < 5; i++) {
                stub.query(QueryRequest.newBuilder().addProbes(Probe.newBuilder().setFingerprint(0x0123456789abcdeeL)).build());
            }
            StatusRuntimeException bad = assertThrows(StatusRuntimeException.class,
                    () -> stub.insert(InsertRequest.newBuilder().addDocuments(Document.newBuilder().setId("")).build()));
            assertEquals(Status.Code.INVALID_ARGUMENT, bad.getStatus().getCode());

            Scrape s = Scrape.awaitCalls(port, QUERY, "OK", 5);
            s = Scrape.awaitCalls(port, INSERT, "INVALID_ARGUMENT", 1);
            assertEquals(200, s.status());
            assertTrue(s.contentType().startsWith("text/plain; version=0.0.4"), s.contentType());
            assertEquals(2, s.value(COUNT, Map.of("grpc_method", INSERT, "grpc_status", "OK")));
            assertEquals(5, s.value(COUNT, Map.of("grpc_method", QUERY, "grpc_status", "OK")));
            assertEquals(Double.NaN, s.value(COUNT, Map.of("grpc_method", DELETE)), "no Delete called yet");
            assertEquals(5, s.value("grpc_server_call_duration_seconds_bucket",
                    Map.of("grpc_method", QUERY, "grpc_status", "OK", "le", "+Inf")));
            assertTrue(s.value("grpc_server_call_duration_seconds_sum", Map.of("grpc_method", QUERY, "grpc_status", "OK")) > 0);

            assertEquals(3, s.value("simdex_documents", Map.of("collection", "default")));
            assertEquals(3, s.value("simdex_fingerprints", Map.of("collection", "default")));
            assertEquals(1, s.value("simdex_generations", Map.of("collection", "default")));
            assertEquals(0, s.value("simdex_pages", Map.of("collection", "default")), "new collections' tables are packed");
            assertEquals(12, s.value("simdex_tables_unpacked", Map.of("collection", "default")), "3 documents' residues in 4 tables, not yet packed");
            assertTrue(s.value("simdex_store_bytes", Map.of("collection", "default", "part", "tables")) > 0);
            assertTrue(s.value("simdex_store_bytes", Map.of("collection", "default", "part", "docs")) > 0);
            assertEquals(0, s.value("simdex_disk_full", Map.of()));
            assertEquals(0, s.value("simdex_write_log_failed", Map.of()));
            assertEquals(0, s.value("simdex_write_log_force_seconds_count", Map.of()), "no log without --durability fsync");
            // The GC pause timer appears only after the JVM's first collection; the allocation counter is there from the start.
            assertTrue(s.has("jvm_memory_used_bytes") && s.has("jvm_gc_memory_allocated_bytes_total") && s.has("process_uptime_seconds"));

            stub.delete(DeleteRequest.newBuilder().addIds("a").build());
            s = Scrape.awaitCalls(port, DELETE, "OK", 1);
            assertEquals(2, s.value("simdex_documents", Map.of("collection", "default")), "read afresh at every scrape");
        }
    }

    /** What Dedup, Query and CheckUrls decided, by collection and outcome: what a pipeline's duplicate rate is read from. */
    @Test
    void scrape_countsDedupDecisions_matchedProbes_andNewUrls() throws Exception {
        try (TestServer server = new TestServer(dir, Clock.systemUTC())) {
            int port = server.simdex.serveMetrics("127.0.0.1", 0).port();
            SimdexGrpc.SimdexBlockingStub stub = server.stub();
            stub.dedup(DedupRequest.newBuilder().addDocuments(Document.newBuilder().setId("a").setFingerprint(0x0123456789abcdefL))
                    .addDocuments(Document.newBuilder().setId("b").setFingerprint(0x0123456789abcdeeL))
                    .addDocuments(Document.newBuilder().setId("c").setFingerprint(0x7777777777777777L)).build());
            stub.dedup(DedupRequest.newBuilder().addDocuments(Document.newBuilder().setId("d").setFingerprint(0x7777777777777770L)).build());
            stub.query(QueryRequest.newBuilder().addProbes(Probe.newBuilder().setFingerprint(0x0123456789abcdecL))
                    .addProbes(Probe.newBuilder().setFingerprint(0x1111111111111111L)).addProbes(Probe.newBuilder().setFingerprint(0x7777777777777777L)).build());
            stub.checkUrls(CheckUrlsRequest.newBuilder().setJob("j").addUrls("https://a.cn/1").addUrls("https://a.cn/2").addUrls("https://a.cn/1").build());

            Scrape s = Scrape.awaitCalls(port, SimdexGrpc.getCheckUrlsMethod().getFullMethodName(), "OK", 1);
            assertEquals(2, s.value("simdex_dedup_documents_total", Map.of("collection", "default", "outcome", "inserted")), "a and c");
            assertEquals(2, s.value("simdex_dedup_documents_total", Map.of("collection", "default", "outcome", "duplicate")), "b and d");
            assertEquals(2, s.value("simdex_query_probes_total", Map.of("collection", "default", "outcome", "matched")));
            assertEquals(1, s.value("simdex_query_probes_total", Map.of("collection", "default", "outcome", "unmatched")));
            assertEquals(2, s.value("simdex_urls_checked_total", Map.of("outcome", "new")));
            assertEquals(1, s.value("simdex_urls_checked_total", Map.of("outcome", "seen")));
        }
    }

    /** A deleted collection's decision series go with it; a collection made again under its name counts from 0. */
    @Test
    void scrape_deletedCollectionsDecisionCounts_go() throws Exception {
        try (TestServer server = new TestServer(dir, Clock.systemUTC())) {
            int port = server.simdex.serveMetrics("127.0.0.1", 0).port();
            SimdexGrpc.SimdexBlockingStub stub = server.stub();
            Map<String, String> inserted = Map.of("collection", "temp", "outcome", "inserted");
            stub.createCollection(CreateCollectionRequest.newBuilder().setName("temp").build());
            stub.dedup(DedupRequest.newBuilder().setCollection("temp").addDocuments(Document.newBuilder().setId("a").setFingerprint(1)).build());
            assertEquals(1, Scrape.awaitCalls(port, SimdexGrpc.getDedupMethod().getFullMethodName(), "OK", 1)
                    .value("simdex_dedup_documents_total", inserted));

            stub.deleteCollection(DeleteCollectionRequest.newBuilder().setName("temp").build());
            Scrape gone = Scrape.of(port, "/metrics");
            assertTrue(Double.isNaN(gone.value("simdex_dedup_documents_total", inserted)), "no series of the deleted collection");
            assertTrue(Double.isNaN(gone.value("simdex_dedup_documents_total", Map.of("collection", "temp", "outcome", "duplicate"))));

            stub.createCollection(CreateCollectionRequest.newBuilder().setName("temp").build());
            stub.dedup(DedupRequest.newBuilder().setCollection("temp").addDocuments(Document.newBuilder().setId("b").setFingerprint(2)).build());
            stub.query(QueryRequest.newBuilder().setCollection("temp").addProbes(Probe.newBuilder().setFingerprint(2)).build());
            Scrape again = Scrape.awaitCalls(port, SimdexGrpc.getQueryMethod().getFullMethodName(), "OK", 1);
            assertEquals(1, again.value("simdex_dedup_documents_total", inserted), "counted from 0 again");
            assertEquals(1, again.value("simdex_query_probes_total", Map.of("collection", "temp", "outcome", "matched")));

            // What a router does for a collection another router deleted: its sweep keeps only the catalog's.
            server.simdex.service().outcomes().retainOnly(Set.of("default"));
            Scrape swept = Scrape.of(port, "/metrics");
            assertTrue(Double.isNaN(swept.value("simdex_query_probes_total", Map.of("collection", "temp", "outcome", "matched"))));
            assertTrue(swept.has("simdex_urls_checked_total"), "the process's own counts stay");
        }
    }

    /**
     * Text probes judged by sketches, and the kept sketches read for them: once per distinct
     * candidate fingerprint of a call, so two probes of one text in a call read its one
     * candidate's sketch once. The counts are the process's, so the test reads differences.
     */
    @Test
    void scrape_countsSketchProbesAndTheSketchesReadForThem() throws Exception {
        String text = "The harbour authority closed the northern quay for repairs after the storm damaged its "
                + "cranes, and ferries will use the southern terminal until the work ends in the spring";
        String other = "Tea prices rose for a third month as drought cut the harvest in the hill country, traders said on Monday";
        try (TestServer server = new TestServer(dir, Clock.systemUTC())) {
            int port = server.simdex.serveMetrics("127.0.0.1", 0).port();
            SimdexGrpc.SimdexBlockingStub stub = server.stub();
            stub.insert(InsertRequest.newBuilder().addDocuments(Document.newBuilder().setId("t").setText(text))
                    .addDocuments(Document.newBuilder().setId("o").setText(other)).build());
            long probes = SketchReads.probes();
            long reads = SketchReads.reads();
            stub.query(QueryRequest.newBuilder().addProbes(Probe.newBuilder().setText(text)).build());
            assertEquals(probes + 1, SketchReads.probes());
            assertEquals(reads + 1, SketchReads.reads(), "one candidate: the stored copy");
            stub.query(QueryRequest.newBuilder().addProbes(Probe.newBuilder().setText(text)).addProbes(Probe.newBuilder().setText(text)).build());
            assertEquals(probes + 3, SketchReads.probes());
            assertEquals(reads + 2, SketchReads.reads(), "read once for the call's two probes");

            Scrape s = Scrape.awaitCalls(port, QUERY, "OK", 2);
            assertEquals(SketchReads.probes(), s.value("simdex_sketch_probes_total", Map.of()));
            assertEquals(SketchReads.reads(), s.value("simdex_sketch_reads_total", Map.of()));
            assertEquals(SketchReads.capped(), s.value("simdex_sketch_capped_probes_total", Map.of()));
        }
    }

    /** With fsync: the logs' forces and their time, the bytes appended (all still in their segments: no checkpoint yet). */
    @Test
    void scrape_fsync_countsTheLogsForcesAndBytes() throws Exception {
        try (TestServer server = TestServer.fsync(dir)) {
            int port = server.simdex.serveMetrics("127.0.0.1", 0).port();
            SimdexGrpc.SimdexBlockingStub stub = server.stub();
            stub.insert(insert("a", 0x0123456789abcdefL, "b", 0x0f0f0f0f0f0f0f0fL));
            stub.insert(insert("c", 0x7777777777777777L));

            Scrape s = Scrape.awaitCalls(port, INSERT, "OK", 2);
            assertTrue(s.value("simdex_write_log_force_seconds_count", Map.of()) >= 2, "each acknowledged insert waited for a force");
            assertTrue(s.value("simdex_write_log_force_seconds_sum", Map.of()) > 0);
            assertEquals(walBytes(), s.value("simdex_write_log_appended_bytes_total", Map.of()));
            assertEquals(0, s.value("simdex_write_log_checkpoints_total", Map.of()));
        }
    }

    private long walBytes() throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(p -> p.toString().endsWith(".wal")).mapToLong(p -> p.toFile().length()).sum();
        }
    }

    /** Each certificate in use is exported with its use, read at every scrape. */
    @Test
    void scrape_certificatesInUse_theirExpiryByUse() throws Exception {
        Instant[] expires = {Instant.parse("2031-05-01T12:00:00Z")};
        CertificatesInUse.track("test-only", () -> expires[0]);
        try (TestServer server = new TestServer(dir, Clock.systemUTC())) {
            int port = server.simdex.serveMetrics("127.0.0.1", 0).port();
            assertEquals(expires[0].getEpochSecond(), Scrape.of(port, "/metrics")
                    .value("simdex_tls_certificate_expiration_timestamp_seconds", Map.of("use", "test-only")));
            expires[0] = expires[0].plusSeconds(86_400);
            assertEquals(expires[0].getEpochSecond(), Scrape.of(port, "/metrics")
                    .value("simdex_tls_certificate_expiration_timestamp_seconds", Map.of("use", "test-only")));
        }
    }

    @Test
    void scrape_otherPath_notFound() throws Exception {
        try (TestServer server = new TestServer(dir, Clock.systemUTC())) {
            int port = server.simdex.serveMetrics("127.0.0.1", 0).port();
            assertEquals(404, Scrape.of(port, "/").status());
            assertEquals(404, Scrape.of(port, "/metrics/x").status());
        }
    }

    private static InsertRequest insert(Object... idsAndFingerprints) {
        InsertRequest.Builder b = InsertRequest.newBuilder();
        for (int i = 0; i < idsAndFingerprints.length; i += 2) {
            b.addDocuments(Document.newBuilder().setId((String) idsAndFingerprints[i]).setFingerprint((Long) idsAndFingerprints[i + 1]));
        }
        return b.build();
    }
}
