package io.simdex.loadtest.run;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.grpc.ManagedChannel;
import io.simdex.loadtest.echo.EchoService;
import io.simdex.proto.v1.CheckUrlsRequest;
import io.simdex.proto.v1.SimdexGrpc;
import io.simdex.proto.v1.StatsRequest;
import io.simdex.router.EmbeddedSimdex;
import io.simdex.router.transport.PublicServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The load generator against the echo server in this JVM, each run bounded to about a second. No timing asserted. */
class LoadLoopSmokeTest {
    private static final LoadLoop.Bound SHORT = new LoadLoop.Bound(2_000, TimeUnit.SECONDS.toNanos(1));

    private PublicServer echo;
    private Target target;

    @BeforeEach
    void start() {
        echo = EchoService.serve(0);
        target = Target.open("127.0.0.1:" + echo.port(), Path.of("unused"), 1, 1);
    }

    @AfterEach
    void stop() throws Exception {
        target.close();
        echo.close();
    }

    @Test
    void closed_unaryQueryAgainstEcho_completesWithoutErrors() throws Exception {
        Workload w = Workloads.create(options(WorkloadOptions.Method.query, 1), target.channels(1), Duration.ofSeconds(5));

        RunResult r = LoadLoop.closed(w, 4, SHORT);

        assertEquals(0, r.errors(), r.firstError());
        assertTrue(r.requests() > 0);
        assertTrue(r.latencyMicros().p50() > 0 && r.latencyMicros().p50() <= r.latencyMicros().max());
        assertEquals(null, r.dispatchLagMicros());
    }

    @Test
    void open_batchedQueryAtFixedRate_recordsLatencyAndDispatchLag() throws Exception {
        Workload w = Workloads.create(options(WorkloadOptions.Method.query, 100), target.channels(2), Duration.ofSeconds(5));

        RunResult r = LoadLoop.open(w, 200, SHORT, 100);

        assertEquals(0, r.errors(), r.firstError());
        assertTrue(r.requests() > 0);
        assertEquals(r.requestsPerSecond() * 100, r.itemsPerSecond(), r.itemsPerSecond() * 0.01 + 1);
        assertNotNull(r.dispatchLagMicros());
    }

    @Test
    void closed_dedupInsertAndUrlBatchesAgainstEcho_completeWithoutErrors() throws Exception {
        for (WorkloadOptions.Method m : new WorkloadOptions.Method[]{WorkloadOptions.Method.dedup, WorkloadOptions.Method.insert,
                WorkloadOptions.Method.urls}) {
            ManagedChannel[] channels = target.channels(1);
            RunResult r = LoadLoop.closed(Workloads.create(options(m, 50), channels, Duration.ofSeconds(5)), 2,
                    new LoadLoop.Bound(50, TimeUnit.SECONDS.toNanos(1)));
            assertEquals(0, r.errors(), m + ": " + r.firstError());
            assertEquals(50, r.requests(), m.name());
        }
    }

    @Test
    void dedupAndInsertRuns_sendNewDocumentsEachRun_neverRetriesOfAnEarlierRun(@TempDir Path dir) throws Exception {
        try (EmbeddedSimdex simdex = EmbeddedSimdex.start(dir, 1, "127.0.0.1", 0, 10_000);
             Target embedded = Target.open("127.0.0.1:" + simdex.port(), dir, 1, 1)) {
            ManagedChannel[] channels = embedded.channels(1);
            SimdexGrpc.SimdexBlockingStub stub = SimdexGrpc.newBlockingStub(channels[0]);
            for (WorkloadOptions.Method m : new WorkloadOptions.Method[]{WorkloadOptions.Method.dedup, WorkloadOptions.Method.insert}) {
                WorkloadOptions o = options(m, 10);
                o.dupFraction = 0;
                Workload w = Workloads.create(o, channels, Duration.ofSeconds(30));
                long before = stub.stats(StatsRequest.getDefaultInstance()).getDocuments();
                for (int run = 0; run < 3; run++) {
                    RunResult r = LoadLoop.closed(w, 1, new LoadLoop.Bound(5, TimeUnit.SECONDS.toNanos(30)));
                    assertEquals(0, r.errors(), m + ": " + r.firstError());
                }
                // Each run starts at call 0: 3 runs of 5 calls of 10 new documents store 150, not the first run's 50 three times.
                assertEquals(before + 150, stub.stats(StatsRequest.getDefaultInstance()).getDocuments(), m.name());
            }
        }
    }

    /** URL runs: the share asked of each request's URLs comes from the seen pool, the rest are new to every request. */
    @Test
    void urlsRequests_drawTheSeenShareFromThePool_andTheRestFresh(@TempDir Path dir) throws Exception {
        WorkloadOptions o = options(WorkloadOptions.Method.urls, 1000);
        CheckUrlsRequest first = Workloads.urlsRequest(o, 7, 0);
        CheckUrlsRequest second = Workloads.urlsRequest(o, 7, 1);
        long pooled = first.getUrlsList().stream().filter(u -> u.startsWith("https://seen.example/")).count();
        assertTrue(pooled > 430 && pooled < 570, "about half of 1,000: " + pooled);
        Set<String> fresh = new HashSet<>(first.getUrlsList());
        fresh.removeIf(u -> u.startsWith("https://seen.example/"));
        assertTrue(second.getUrlsList().stream().noneMatch(fresh::contains), "no new URL sent twice");
        try (EmbeddedSimdex simdex = EmbeddedSimdex.start(dir, 1, "127.0.0.1", 0, 10_000);
             Target embedded = Target.open("127.0.0.1:" + simdex.port(), dir, 1, 1)) {
            SimdexGrpc.SimdexBlockingStub stub = SimdexGrpc.newBlockingStub(embedded.channels(1)[0]);
            Set<String> sentFirst = new HashSet<>(first.getUrlsList());
            assertEquals(sentFirst.size(), stub.checkUrls(first).getNewCount(), "every distinct URL of the first request is new");
            Set<String> sentSecond = new HashSet<>(second.getUrlsList());
            long seen = sentSecond.stream().filter(sentFirst::contains).count();
            assertTrue(seen > 0, "the pool repeats some URLs");
            assertEquals(sentSecond.size() - seen, stub.checkUrls(second).getNewCount(), "the second request's pool URLs the first sent are seen");
        }
    }

    @Test
    void runCommand_echoTarget_printsJsonReportAndExitsZero() {
        ByteArrayOutputStream stdout = new ByteArrayOutputStream();
        PrintStream saved = System.out;
        System.setOut(new PrintStream(stdout, true, StandardCharsets.UTF_8));
        int status;
        try {
            status = new CommandLine(new RunCommand()).execute("--target", "echo", "--duration", "500ms", "--warmup", "0s",
                    "--concurrency", "2", "--stored", "1000");
        } finally {
            System.setOut(saved);
        }
        assertEquals(0, status);
        String json = stdout.toString(StandardCharsets.UTF_8);
        assertTrue(json.contains("\"median\"") && json.contains("\"p99\""), json);
    }

    @Test
    void runCommand_withWarmup_settlesThenReportsTheGeneratorsOwnCostPerRun(@TempDir Path dir) throws Exception {
        JsonObject report = runEcho(dir, "--duration", "300ms", "--warmup", "200ms", "--runs", "2");
        int cycles = report.getAsJsonObject("settings").get("settlingCycles").getAsInt();
        assertTrue(cycles >= 1 && cycles <= 6, "at least one settling cycle, at most the default six: " + cycles);
        JsonArray runs = report.getAsJsonArray("runs");
        assertEquals(2, runs.size());
        for (int i = 0; i < runs.size(); i++) {
            JsonObject cost = runs.get(i).getAsJsonObject().getAsJsonObject("generator");
            assertNotNull(cost, "run " + i + " reports the generator's JIT and GC time");
            assertTrue(cost.get("compileMillis").getAsLong() >= 0 && cost.get("gcMillis").getAsLong() >= 0, cost.toString());
        }
    }

    @Test
    void runCommand_settlingTurnedOff_reportsNoCycles(@TempDir Path dir) throws Exception {
        JsonObject settings = runEcho(dir, "--duration", "200ms", "--warmup", "200ms", "--settle-cycles", "0").getAsJsonObject("settings");
        assertEquals(0, settings.get("settlingCycles").getAsInt());
        assertFalse(settings.get("settled").getAsBoolean());
    }

    @Test
    void measuredRun_echoTarget_reportsServerHandlingOfExactlyThatRunsCalls() throws Exception {
        ManagedChannel[] channels = target.channels(1);
        WorkloadOptions o = options(WorkloadOptions.Method.query, 1);
        ServerTimes times = new ServerTimes(channels[0], o.fullMethodName());
        Workload w = Workloads.create(o, channels, Duration.ofSeconds(5));
        LoadLoop.closed(w, 2, new LoadLoop.Bound(300, TimeUnit.SECONDS.toNanos(5)));

        times.reset();
        RunResult r = LoadLoop.closed(w, 2, new LoadLoop.Bound(500, TimeUnit.SECONDS.toNanos(5)));
        ServerHandling h = times.read(r.requests());

        assertEquals(500, r.requests());
        assertEquals(500, h.calls(), "the earlier 300 calls were reset away");
        assertTrue(h.p50() > 0 && h.p50() <= h.p99() && h.p99() <= h.max(), h.toString());
        assertTrue(h.max() <= r.latencyMicros().max() + 1_000, "the server's time is inside the client's: " + h + " vs " + r);
        assertTrue(h.queuedP50() <= h.p50() && h.queuedP99() <= h.p99() && h.queuedMax() <= h.max(),
                "every call's wait for a thread is part of its handling time: " + h);
    }

    @Test
    void serverTimes_serverWithoutTheRpc_noServerTimesAndNoFailure() throws Exception {
        io.simdex.proto.v1.SimdexGrpc.SimdexImplBase bare = new io.simdex.proto.v1.SimdexGrpc.SimdexImplBase() {
        };
        try (PublicServer server = PublicServer.start("127.0.0.1", 0, bare, io.simdex.proto.v1.SimdexGrpc.SERVICE_NAME);
             Target t = Target.open("127.0.0.1:" + server.port(), Path.of("unused"), 1, 1)) {
            ServerTimes times = new ServerTimes(t.channels(1)[0], options(WorkloadOptions.Method.query, 1).fullMethodName());
            times.reset();
            assertEquals(null, times.read(1));
            times.reset();
            assertEquals(null, times.read(1), "not asked again, still no failure");
        }
    }

    @Test
    void open_nonLoopbackTarget_refused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Target.open("10.1.2.3:7411", Path.of("unused"), 1, 1));
        assertTrue(e.getMessage().contains("non-loopback"), e.getMessage());
    }

    /** {@code run} against an in-process echo, c=2, with {@code args}; its report, from the JSON file. */
    private static JsonObject runEcho(Path dir, String... args) throws Exception {
        Path json = dir.resolve("run.json");
        List<String> line = new ArrayList<>(List.of("--target", "echo", "--concurrency", "2", "--stored", "1000", "--json", json.toString()));
        line.addAll(List.of(args));
        assertEquals(0, new CommandLine(new RunCommand()).execute(line.toArray(String[]::new)));
        return JsonParser.parseString(Files.readString(json)).getAsJsonObject().getAsJsonArray("reports").get(0).getAsJsonObject();
    }

    private static WorkloadOptions options(WorkloadOptions.Method method, int batch) {
        WorkloadOptions o = new WorkloadOptions();
        o.method = method;
        o.batch = batch;
        o.maxDistance = 3;
        o.probes = "planted";
        o.seed = 42;
        o.stored = 10_000;
        o.dupFraction = 0.5;
        o.collection = "";
        return o;
    }
}
