package io.simdex.ops;

import com.google.protobuf.UInt32Value;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;
import io.simdex.fingerprint.BitFlips;
import io.simdex.fingerprint.Hamming;
import io.simdex.proto.v1.BulkLoadRequest;
import io.simdex.proto.v1.BulkLoadResponse;
import io.simdex.proto.v1.Document;
import io.simdex.proto.v1.InsertRequest;
import io.simdex.proto.v1.Probe;
import io.simdex.proto.v1.QueryRequest;
import io.simdex.proto.v1.QueryResponse;
import io.simdex.proto.v1.QueryResult;
import io.simdex.proto.v1.SimdexGrpc;
import io.simdex.proto.v1.StatsRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The embedded default as users run it: {@code java -jar simdex.jar embedded} in its own
 * process, killed with SIGKILL and restarted (maps recovered), stopped with SIGTERM and
 * restarted (maps closed cleanly), and driven by the CLI in separate processes.
 */
class EmbeddedProcessIT {
    @TempDir
    Path dir;

    private static final int N = 30_000;

    @Test
    void embedded_killNineAndRestart_everythingFoundAgain() throws Exception {
        long[] fps = new SplittableRandom(9).longs(N).toArray();
        long[] probes = probes(fps);
        Path data = dir.resolve("data");
        int port = SimdexProcess.freePort();
        String[] embedded = {"embedded", "--data", data.toString(), "--port", Integer.toString(port), "--expected", "100000"};

        try (SimdexProcess server = SimdexProcess.start(dir.resolve("run1.log"), embedded)) {
            server.awaitServing(port, "simdex.v1.Simdex");
            withStub(port, stub -> {
                for (int from = 0; from < N; from += 5_000) {
                    InsertRequest.Builder req = InsertRequest.newBuilder();
                    for (int i = from; i < from + 5_000; i++) {
                        req.addDocuments(Document.newBuilder().setId("doc-" + i).setFingerprint(fps[i]));
                    }
                    stub.insert(req.build());
                }
                assertMatchesBruteForce(stub, fps, probes);
            });
            server.kill9();
        }
        assertFalse(Files.exists(data.resolve("shard-0/default/g-0/.clean")), "a killed process leaves no clean marker");

        try (SimdexProcess server = SimdexProcess.start(dir.resolve("run2.log"), embedded)) {
            server.awaitServing(port, "simdex.v1.Simdex");
            withStub(port, stub -> {
                assertEquals(N, stub.stats(StatsRequest.getDefaultInstance()).getDocuments());
                assertMatchesBruteForce(stub, fps, probes);
            });
            assertEquals(143, server.stop(), "SIGTERM exit code; shutdown hook closed the maps");
        }
        assertTrue(Files.exists(data.resolve("shard-0/default/g-0/.clean")), "a stopped process closes its maps cleanly");

        try (SimdexProcess server = SimdexProcess.start(dir.resolve("run3.log"), embedded)) {
            server.awaitServing(port, "simdex.v1.Simdex");
            withStub(port, stub -> assertMatchesBruteForce(stub, fps, probes));
            server.stop();
        }
    }

    /**
     * A load of 60 batches whose client retries every failed batch (waiting for the server to
     * come back), with the server killed by SIGKILL mid-way and restarted: every document is
     * present exactly once, the batch cut short by the kill included. One in 20 documents shares
     * a single fingerprint, so the hot path is killed mid-write too.
     */
    @Test
    void embedded_killNineDuringARetriedLoad_everyDocumentOnce() throws Exception {
        int batches = 60;
        int batch = 2_000;
        long hot = 0x7a7a_0000_ffff_1234L;
        long[] fps = new SplittableRandom(11).longs((long) batches * batch).toArray();
        for (int i = 0; i < fps.length; i += 20) {
            fps[i] = hot;
        }
        Path data = dir.resolve("data");
        int port = SimdexProcess.freePort();
        String[] embedded = {"embedded", "--data", data.toString(), "--port", Integer.toString(port), "--expected", "100000"};
        AtomicInteger acknowledged = new AtomicInteger();
        ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
        ExecutorService loader = Executors.newSingleThreadExecutor();
        try (SimdexProcess first = SimdexProcess.start(dir.resolve("load1.log"), embedded)) {
            first.awaitServing(port, "simdex.v1.Simdex");
            Future<?> load = loader.submit(() -> {
                for (int b = 0; b < batches; b++) {
                    InsertRequest.Builder req = InsertRequest.newBuilder();
                    for (int i = b * batch; i < (b + 1) * batch; i++) {
                        req.addDocuments(Document.newBuilder().setId("load-" + i).setFingerprint(fps[i]));
                    }
                    while (true) {
                        try {
                            // Wait-for-ready: while the server is down the call waits for it instead of failing at once.
                            SimdexGrpc.newBlockingStub(channel).withWaitForReady().withDeadlineAfter(120, TimeUnit.SECONDS).insert(req.build());
                            acknowledged.incrementAndGet();
                            break;
                        } catch (StatusRuntimeException e) {
                            // cut short by the kill, or refused while the restarted server recovers: send it again
                        }
                    }
                }
                return null;
            });
            Await.until("10 batches acknowledged", Duration.ofMinutes(3), acknowledged::get, n -> n >= 10, () -> "");
            first.kill9();
            try (SimdexProcess second = SimdexProcess.start(dir.resolve("load2.log"), embedded)) {
                second.awaitServing(port, "simdex.v1.Simdex");
                load.get(10, TimeUnit.MINUTES);
                assertEquals(batches, acknowledged.get());
                SimdexGrpc.SimdexBlockingStub stub = SimdexGrpc.newBlockingStub(channel).withDeadlineAfter(120, TimeUnit.SECONDS);
                assertEquals(fps.length, stub.stats(StatsRequest.getDefaultInstance()).getDocuments(), "each document once");
                Set<String> hotIds = new HashSet<>();
                QueryResult hotResult = stub.query(QueryRequest.newBuilder()
                        .setMaxDistance(UInt32Value.of(0)).setLimit(10_000)
                        .addProbes(Probe.newBuilder().setFingerprint(hot)).build()).getResults(0);
                hotResult.getMatchesList().forEach(m -> assertTrue(hotIds.add(m.getId()), m.getId() + " listed twice"));
                assertEquals(fps.length / 20, hotIds.size());
                assertEquals(fps.length / 20, hotResult.getTotalMatches());
                for (int from = 0; from < fps.length; from += 10_000) {
                    QueryRequest.Builder q = QueryRequest.newBuilder()
                            .setMaxDistance(UInt32Value.of(0));
                    for (int i = from; i < from + 10_000; i++) {
                        q.addProbes(Probe.newBuilder().setFingerprint(fps[i]));
                    }
                    QueryResponse r = stub.query(q.build());
                    for (int i = from; i < from + 10_000; i++) {
                        if (fps[i] != hot) {
                            String id = "load-" + i;
                            assertEquals(1, r.getResults(i - from).getMatchesList().stream().filter(m -> m.getId().equals(id)).count(),
                                    id + " found once");
                        }
                    }
                }
                second.stop();
            }
        } finally {
            loader.shutdownNow();
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    /**
     * SIGTERM while a BulkLoad stream is being written. The process must exit as stopped (143),
     * not die of a fatal error: Chronicle Map's own exit hook used to unmap every map while the
     * handler threads still wrote the stream's batches into pages (SIGSEGV in BucketTable). And
     * what it kept must be whole after the restart: every document counted is found by its
     * fingerprint under its own id, so no batch was cut between its ids and its bucket entries.
     */
    @Test
    void embedded_sigtermDuringABulkLoad_exitsCleanlyAndKeepsWholeDocuments() throws Exception {
        int n = 600_000;
        int batch = 2_000;
        long[] fps = new SplittableRandom(13).longs(n).toArray();
        Path data = dir.resolve("data");
        Path fatalErrorLog = dir.resolve("hs_err.log");
        int port = SimdexProcess.freePort();
        String[] embedded = {"embedded", "--data", data.toString(), "--port", Integer.toString(port), "--expected", "1000000"};
        ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
        try (SimdexProcess server = SimdexProcess.start(dir.resolve("bulk1.log"), List.of("-XX:ErrorFile=" + fatalErrorLog), embedded)) {
            server.awaitServing(port, "simdex.v1.Simdex");
            CountDownLatch ended = new CountDownLatch(1);
            StreamObserver<BulkLoadRequest> stream = SimdexGrpc.newStub(channel).bulkLoad(new StreamObserver<>() {
                @Override
                public void onNext(BulkLoadResponse r) {
                }

                @Override
                public void onError(Throwable t) {
                    ended.countDown();
                }

                @Override
                public void onCompleted() {
                    ended.countDown();
                }
            });
            // Never half-closed: the server is stopped while the stream is open and being written.
            for (int from = 0; from < n; from += batch) {
                BulkLoadRequest.Builder req = BulkLoadRequest.newBuilder();
                for (int i = from; i < from + batch; i++) {
                    req.addDocuments(Document.newBuilder().setId("bulk-" + i).setFingerprint(fps[i]));
                }
                stream.onNext(req.build());
            }
            SimdexGrpc.SimdexBlockingStub stub = SimdexGrpc.newBlockingStub(channel);
            Await.until("40,000 documents stored", Duration.ofMinutes(3),
                    () -> stub.withDeadlineAfter(10, TimeUnit.SECONDS).stats(StatsRequest.getDefaultInstance()).getDocuments(),
                    d -> d >= 40_000, server::output);
            assertEquals(143, server.stop(), "SIGTERM exit code, not a fatal error's:\n" + server.output());
            assertFalse(Files.exists(fatalErrorLog), "the JVM wrote a fatal error log:\n" + server.output());
            assertTrue(ended.await(60, TimeUnit.SECONDS), "the stream ended with the server");
        }
        try (Stream<Path> stores = Files.find(data, 3, (p, a) -> p.getFileName().toString().equals("g-0"))) {
            List<Path> all = stores.toList();
            assertFalse(all.isEmpty());
            all.forEach(store -> assertTrue(Files.exists(store.resolve(".clean")), store + " closed cleanly"));
        }

        try (SimdexProcess server = SimdexProcess.start(dir.resolve("bulk2.log"), embedded)) {
            server.awaitServing(port, "simdex.v1.Simdex");
            SimdexGrpc.SimdexBlockingStub stub = SimdexGrpc.newBlockingStub(channel).withDeadlineAfter(120, TimeUnit.SECONDS);
            long documents = stub.stats(StatsRequest.getDefaultInstance()).getDocuments();
            assertTrue(documents >= 40_000, documents + " documents kept");
            int found = 0;
            for (int from = 0; from < n; from += 10_000) {
                QueryRequest.Builder q = QueryRequest.newBuilder().setMaxDistance(UInt32Value.of(0));
                for (int i = from; i < from + 10_000; i++) {
                    q.addProbes(Probe.newBuilder().setFingerprint(fps[i]));
                }
                QueryResponse r = stub.query(q.build());
                for (int i = from; i < from + 10_000; i++) {
                    QueryResult result = r.getResults(i - from);
                    if (result.getMatchesCount() > 0) {
                        assertEquals(List.of("bulk-" + i), result.getMatchesList().stream().map(m -> m.getId()).toList());
                        found++;
                    }
                }
            }
            assertEquals(documents, found, "every document counted is found by its fingerprint");
            server.stop();
        } finally {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void cli_insertQueryDedupStats_againstRunningServer() throws Exception {
        int port = SimdexProcess.freePort();
        String target = "127.0.0.1:" + port;
        try (SimdexProcess server = SimdexProcess.start(dir.resolve("server.log"),
                "embedded", "--data", dir.resolve("data").toString(), "--port", Integer.toString(port), "--expected", "10000")) {
            server.awaitServing(port, "simdex.v1.Simdex");
            String article = Files.readString(Path.of("src/test/resources/article-en.txt"));
            // One word changed: distance 2 with the default settings. How often edits stay within 3
            // is measured statistically in core's text tests; this test is about the CLI path.
            String edited = article.replaceFirst("Tuesday", "Wednesday");

            SimdexProcess.Result insert = SimdexProcess.run(dir, "insert", "--target", target, "--id", "article-1", "--text", article);
            assertEquals(0, insert.exitCode(), insert.output());

            SimdexProcess.Result query = SimdexProcess.run(dir, "query", "--target", target, "--text", edited, "-k", "3");
            assertEquals(0, query.exitCode(), query.output());
            assertTrue(query.output().contains("article-1"), query.output());

            SimdexProcess.Result dedup = SimdexProcess.run(dir, "dedup", "--target", target, "--id", "article-2", "--text", edited, "-k", "3");
            assertEquals(0, dedup.exitCode(), dedup.output());
            assertTrue(dedup.output().contains("article-1"), dedup.output());

            SimdexProcess.Result stats = SimdexProcess.run(dir, "stats", "--target", target, "--json");
            assertEquals(0, stats.exitCode(), stats.output());
            assertTrue(stats.output().replace(" ", "").contains("\"documents\":1"), stats.output());

            SimdexProcess.Result create = SimdexProcess.run(dir, "collections", "create", "news", "--target", target,
                    "--tokenization", "char-ngrams", "--ngram", "2", "--max-distance", "2", "--retention", "2d", "--generation", "6h");
            assertEquals(0, create.exitCode(), create.output());
            SimdexProcess.Result list = SimdexProcess.run(dir, "collections", "list", "--target", target);
            assertTrue(list.output().contains("news") && list.output().contains("k=2 char_ngrams(2) stop-words=kept tf sketch(k<=5, k<=7 up to 150 words, jaccard>=0.4) short-fingerprint(<=300 letters, k<=12, jaccard>=0.2, blocks=whole, order=products32) retention=PT48H/PT6H"), list.output());
            SimdexProcess.Result conflict = SimdexProcess.run(dir, "collections", "create", "news", "--target", target);
            assertEquals(2, conflict.exitCode(), conflict.output());
            assertTrue(conflict.output().contains("ALREADY_EXISTS"), conflict.output());

            SimdexProcess.Result urls = SimdexProcess.run(dir, "urls", "check", "--target", target, "--job", "job_108",
                    "https://a.cn/1", "https://a.cn/2");
            assertEquals("https://a.cn/1\nhttps://a.cn/2\n", urls.output(), "both are new");
            SimdexProcess.Result again = SimdexProcess.run(dir, "urls", "check", "--target", target, "--job", "job_108",
                    "https://a.cn/2", "https://a.cn/3");
            assertEquals("https://a.cn/3\n", again.output(), "only the unseen one is printed");

            SimdexProcess.Result bad = SimdexProcess.run(dir, "query", "--target", target, "--fingerprint", "0123456789abcdef", "-k", "4");
            assertEquals(2, bad.exitCode(), bad.output());
            assertTrue(bad.output().contains("INVALID_ARGUMENT"), bad.output());
            server.stop();
        }
    }

    static long[] probes(long[] fps) {
        return BruteForce.probes(fps, 600, 10);
    }

    static void assertMatchesBruteForce(SimdexGrpc.SimdexBlockingStub stub, long[] fps, long[] probes) {
        BruteForce.assertExact(stub, probes, BruteForce.expected(fps, probes));
    }

    interface StubUse {
        void accept(SimdexGrpc.SimdexBlockingStub stub) throws Exception;
    }

    static void withStub(int port, StubUse use) throws Exception {
        ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
        try {
            use.accept(SimdexGrpc.newBlockingStub(channel).withDeadlineAfter(60, TimeUnit.SECONDS));
        } finally {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }
}
