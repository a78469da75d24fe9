package io.simdex.client.batch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.protobuf.UInt32Value;
import io.grpc.BindableService;
import io.grpc.Grpc;
import io.grpc.InsecureServerCredentials;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.simdex.client.FakeSimdex;
import io.simdex.client.InProcessServer;
import io.simdex.client.SimdexClient;
import io.simdex.client.cli.SimdexCli;
import io.simdex.proto.v1.CollectionInfo;
import io.simdex.proto.v1.CollectionSettings;
import io.simdex.proto.v1.DedupRequest;
import io.simdex.proto.v1.DedupResponse;
import io.simdex.proto.v1.FingerprintRequest;
import io.simdex.proto.v1.FingerprintResponse;
import io.simdex.proto.v1.ListCollectionsRequest;
import io.simdex.proto.v1.ListCollectionsResponse;
import io.simdex.proto.v1.QueryRequest;
import io.simdex.proto.v1.QueryResponse;
import io.simdex.proto.v1.SimdexGrpc;
import io.simdex.proto.v1.SketchSettings;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class DedupBatchCommandTest {
    private final FakeSimdex fake = new FakeSimdex();

    @TempDir
    Path dir;

    @Test
    void simdexCli_registersDedupBatch() {
        CommandLine cli = new CommandLine(new SimdexCli());

        assertTrue(cli.getSubcommands().containsKey("dedup-batch"));
    }

    @Test
    void simdexCli_overRealGrpc_writesDecisionsToOutputFile() throws Exception {
        Server netty = Grpc.newServerBuilderForPort(0, InsecureServerCredentials.create()).addService(fake).build().start();
        try {
            Path in = Files.write(dir.resolve("in.jsonl"), List.of(
                    PlantedBatch.fingerprintLine("a", 7), PlantedBatch.fingerprintLine("b", 6)));
            Path out = dir.resolve("out.jsonl");

            int exit = SimdexCli.run("dedup-batch", "--no-progress", "--target", "localhost:" + netty.getPort(),
                    "-o", out.toString(), in.toString());

            assertEquals(0, exit);
            List<String> lines = Files.readAllLines(out);
            assertEquals(2, lines.size());
            assertTrue(lines.get(1).contains("\"reason\":\"near-duplicate-in-batch\""), lines.get(1));
        } finally {
            netty.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    /** Two fetches of one address spelled two ways: one URL for Nutch's same-URL rule only with --canonical-urls. */
    @Test
    void canonicalUrls_spellingsOfOneAddressAreOneUrl_aLineWithoutAUrlStopsTheRun() throws Exception {
        Path in = Files.write(dir.resolve("in.jsonl"), List.of(
                "{\"id\": \"a\", \"fingerprint\": \"0000000000000001\", \"url\": \"https://a.cn/x\", \"fetch_time\": 1}",
                "{\"id\": \"b\", \"fingerprint\": \"0f0f0f0f0f0f0f0f\", \"url\": \"HTTPS://A.cn:443/x#top\", \"fetch_time\": 2}"));

        Run asGiven = run(fake, "--no-progress", in.toString());
        assertEquals(0, asGiven.exit, asGiven.err);
        assertEquals(2, asGiven.out.lines().filter(l -> l.contains("\"reason\":\"unique\"")).count(), asGiven.out);

        Run canonical = run(fake, "--no-progress", "--canonical-urls", in.toString());
        assertEquals(0, canonical.exit, canonical.err);
        List<String> decisions = canonical.out.lines().toList();
        assertTrue(decisions.get(0).contains("\"decision\":\"drop\",\"reason\":\"older-fetch-of-url\""), decisions.get(0));
        assertTrue(decisions.get(1).contains("\"reason\":\"unique\""), decisions.get(1));

        Path bad = Files.write(dir.resolve("bad.jsonl"), List.of("{\"id\": \"c\", \"fingerprint\": 1, \"url\": \"a.cn/x\"}"));
        Run refused = run(fake, "--no-progress", "--canonical-urls", bad.toString());
        assertTrue(refused.exit != 0);
        assertTrue(refused.err.contains("bad.jsonl:1: url has no scheme (http://, https://, ...): \"a.cn/x\""), refused.err);
    }

    @Test
    void call_noOutputFile_decisionsOnStdoutSummaryOnStderr() throws Exception {
        Path in = Files.write(dir.resolve("in.jsonl"), List.of(PlantedBatch.fingerprintLine("a", 7)));

        Run run = run(fake, "--no-progress", in.toString());

        assertEquals(0, run.exit, run.err);
        JsonObject decision = JsonParser.parseString(run.out.trim()).getAsJsonObject();
        assertEquals("{\"id\":\"a\",\"fingerprint\":\"0000000000000007\",\"decision\":\"keep\",\"reason\":\"unique\","
                + "\"duplicate_of\":[]}", decision.toString());
        assertTrue(run.err.startsWith("dedup-batch: 1 documents in "), run.err);
        assertTrue(run.err.contains(" docs/s): 1 keep, 0 drop;"), run.err);
    }

    @Test
    void call_jsonSummary_countsEveryReason() throws Exception {
        Path in = Files.write(dir.resolve("in.jsonl"), List.of(
                PlantedBatch.fingerprintLine("a", 7), PlantedBatch.fingerprintLine("b", 7)));

        Run run = run(fake, "--no-progress", "--json", "-o", dir.resolve("o.jsonl").toString(), in.toString());

        JsonObject summary = JsonParser.parseString(run.out.trim()).getAsJsonObject();
        assertEquals(2, summary.get("documents").getAsInt());
        assertEquals(1, summary.get("unique").getAsInt());
        assertEquals(1, summary.get("near-duplicate-in-batch").getAsInt());
        assertEquals(1, summary.get("queryCalls").getAsInt());
    }

    @Test
    void call_badOptions_usageError() throws Exception {
        Path in = Files.write(dir.resolve("in.jsonl"), List.of(PlantedBatch.fingerprintLine("a", 7)));

        assertEquals(2, run(fake, "-k", "4", in.toString()).exit);
        assertEquals(2, run(fake, "--batch", "10001", in.toString()).exit);
        assertEquals(2, run(fake, "--parallel", "0", in.toString()).exit);
    }

    @Test
    void call_noK_usesTheCollectionsMaxDistance() throws Exception {
        Path in = Files.write(dir.resolve("in.jsonl"), List.of(
                PlantedBatch.fingerprintLine("a", 0b000), PlantedBatch.fingerprintLine("b", 0b011)));
        Path out = dir.resolve("out.jsonl");

        Run run = run(new Wrapper(fake, 1), "--no-progress", "-o", out.toString(), in.toString());

        assertEquals(0, run.exit, run.err);
        assertTrue(Files.readAllLines(out).stream().allMatch(l -> l.contains("\"decision\":\"keep\"")),
                "distance 2 is beyond the collection's 1");
    }

    @Test
    void call_textsIntoACollectionThatVerifiesThem_withoutInsert_warnsThatTheBatchComparesThemByFingerprint() throws Exception {
        CollectionSettings sketches = CollectionSettings.newBuilder().setMaxDistance(UInt32Value.of(3))
                .setSketch(SketchSettings.newBuilder().setEnabled(true)).build();
        Path texts = Files.writeString(dir.resolve("texts.jsonl"), "{\"id\": \"t\", \"text\": \"storm on the coast\"}\n");
        Path fingerprints = Files.write(dir.resolve("fps.jsonl"), List.of(PlantedBatch.fingerprintLine("a", 7)));

        Run warned = run(new Wrapper(fake, sketches), "--no-progress", "-o", dir.resolve("o1.jsonl").toString(), texts.toString());
        assertEquals(0, warned.exit, warned.err);
        assertTrue(warned.err.contains("warning: collection 'default' verifies texts"), warned.err);

        Run unwarned = run(new Wrapper(fake, sketches), "--no-progress", "-o", dir.resolve("o2.jsonl").toString(), fingerprints.toString());
        assertFalse(unwarned.err.contains("warning"), "no texts, nothing verified: " + unwarned.err);
        Run plain = run(new Wrapper(fake, 3), "--no-progress", "-o", dir.resolve("o3.jsonl").toString(), texts.toString());
        assertFalse(plain.err.contains("warning"), "a collection without verification: " + plain.err);
        Run inserted = run(new Wrapper(fake, sketches), "--no-progress", "--insert", "-o", dir.resolve("o4.jsonl").toString(), texts.toString());
        assertFalse(inserted.err.contains("warning"), "decided through Dedup: " + inserted.err);
    }

    @Test
    void call_textsTheServerRejects_splitAroundAndReportedAsNoFingerprint() throws Exception {
        StringBuilder lines = new StringBuilder();
        for (int i = 0; i < 64; i++) {
            String text = i == 9 || i == 40 ? "!!!" : "text " + i;
            lines.append("{\"id\": \"t").append(i).append("\", \"text\": \"").append(text).append("\"}\n");
        }
        Path in = Files.writeString(dir.resolve("in.jsonl"), lines);
        Path out = dir.resolve("out.jsonl");
        Wrapper wrapper = new Wrapper(fake, 3);

        Run run = run(wrapper, "--no-progress", "--batch", "64", "-o", out.toString(), in.toString());

        assertEquals(0, run.exit, run.err);
        List<String> decisions = Files.readAllLines(out);
        assertEquals("{\"id\":\"t9\",\"fingerprint\":null,\"decision\":\"drop\",\"reason\":\"no-fingerprint\","
                + "\"duplicate_of\":[],\"error\":\"texts[0] has no terms\"}", decisions.get(9));
        assertTrue(decisions.get(40).contains("\"reason\":\"no-fingerprint\""));
        assertEquals(62, decisions.stream().filter(l -> l.contains("\"reason\":\"unique\"")).count());
        assertTrue(wrapper.fingerprintCalls.get() <= 1 + 2 * 2 * 6, "bisection, not one call per text: " + wrapper.fingerprintCalls);
    }

    private Run run(BindableService service, String... args) throws Exception {
        try (InProcessServer server = InProcessServer.start(service)) {
            StringWriter out = new StringWriter();
            StringWriter err = new StringWriter();
            CommandLine cli = new CommandLine(new DedupBatchCommand((target, options) -> SimdexClient.over(server.channel(), options)))
                    .setOut(new PrintWriter(out, true)).setErr(new PrintWriter(err, true));
            int exit = cli.execute(args);
            return new Run(exit, out.toString(), err.toString());
        }
    }

    private record Run(int exit, String out, String err) {
    }

    /** The fake, with a collection max_distance and a Fingerprint RPC that rejects "!!!" like the server rejects texts with no terms. */
    private static final class Wrapper extends SimdexGrpc.SimdexImplBase {
        final AtomicInteger fingerprintCalls = new AtomicInteger();
        private final FakeSimdex fake;
        private final CollectionSettings settings;

        Wrapper(FakeSimdex fake, int maxDistance) {
            this(fake, CollectionSettings.newBuilder().setMaxDistance(UInt32Value.of(maxDistance)).build());
        }

        Wrapper(FakeSimdex fake, CollectionSettings settings) {
            this.fake = fake;
            this.settings = settings;
        }

        @Override
        public void listCollections(ListCollectionsRequest req, StreamObserver<ListCollectionsResponse> obs) {
            obs.onNext(ListCollectionsResponse.newBuilder().addCollections(CollectionInfo.newBuilder().setName("default")
                    .setSettings(settings)).build());
            obs.onCompleted();
        }

        @Override
        public void fingerprint(FingerprintRequest req, StreamObserver<FingerprintResponse> obs) {
            fingerprintCalls.incrementAndGet();
            for (int i = 0; i < req.getTextsCount(); i++) {
                if (req.getTexts(i).equals("!!!")) {
                    obs.onError(Status.INVALID_ARGUMENT.withDescription("texts[" + i + "] has no terms").asRuntimeException());
                    return;
                }
            }
            fake.fingerprint(req, obs);
        }

        @Override
        public void query(QueryRequest req, StreamObserver<QueryResponse> obs) {
            fake.query(req, obs);
        }

        @Override
        public void dedup(DedupRequest req, StreamObserver<DedupResponse> obs) {
            fake.dedup(req, obs);
        }
    }
}
