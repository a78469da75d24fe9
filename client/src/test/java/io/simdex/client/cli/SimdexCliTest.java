package io.simdex.client.cli;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.protobuf.DoubleValue;
import com.google.protobuf.UInt32Value;
import com.google.protobuf.UInt64Value;
import io.grpc.Grpc;
import io.grpc.InsecureServerCredentials;
import io.grpc.Server;
import io.grpc.stub.StreamObserver;
import io.simdex.client.FakeSimdex;
import io.simdex.client.Fingerprints;
import io.simdex.client.InProcessServer;
import io.simdex.client.SimdexClient;
import io.simdex.proto.v1.SimdexGrpc;
import io.simdex.proto.v1.StatsRequest;
import io.simdex.proto.v1.StatsResponse;
import io.simdex.proto.v1.UpdateCollectionRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine.ExitCode;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SimdexCliTest {
    private final FakeSimdex fake = new FakeSimdex();
    private InProcessServer server;

    @TempDir
    Path dir;

    @BeforeEach
    void start() throws Exception {
        server = InProcessServer.start(fake);
    }

    @AfterEach
    void stop() throws Exception {
        server.close();
    }

    @Test
    void load_jsonlFile_loadsEveryDocument() throws Exception {
        Path file = write("docs.jsonl",
                "{\"id\": \"hex\", \"fingerprint\": \"ffffffffffffffff\"}",
                "{\"id\": \"dec\", \"fingerprint\": \"255\"}",
                "",
                "{\"id\": \"num\", \"fingerprint\": 1234567890123456, \"ignored\": true}",
                "{\"id\": 7, \"text\": \"hello world\"}");

        Run run = run("load", "--no-progress", "--batch", "2", file.toString());

        assertEquals(0, run.exit, run.err);
        assertEquals(Map.of("hex", -1L, "dec", 255L, "num", 1234567890123456L,
                "7", FakeSimdex.fingerprintOf("hello world")), fake.documents("default"));
        assertEquals(List.of(2, 2), fake.bulkBatches);
        assertTrue(run.out.startsWith("loaded 4 documents in "), run.out);
        assertTrue(run.out.contains(" docs/s)"), run.out);
    }

    @Test
    void load_tsvFile_hexColumnIsFingerprintElseText() throws Exception {
        fake.addCollection("books");
        Path file = write("docs.tsv", "a\t00000000000000ff", "b\t0x8000000000000000", "c\t12345", "d\tsome\ttabbed text");

        Run run = run("load", "--no-progress", "-c", "books", file.toString());

        assertEquals(0, run.exit, run.err);
        Map<String, Long> expected = new LinkedHashMap<>();
        expected.put("a", 0xffL);
        expected.put("b", Long.MIN_VALUE);
        expected.put("c", FakeSimdex.fingerprintOf("12345"));
        expected.put("d", FakeSimdex.fingerprintOf("some\ttabbed text"));
        assertEquals(expected, fake.documents("books"));
    }

    @Test
    void load_formatOption_overridesExtension() throws Exception {
        Path file = write("docs.data", "x\t00000000000000aa");

        Run run = run("load", "--no-progress", "--format", "tsv", "--json", file.toString());

        assertEquals(0, run.exit, run.err);
        assertEquals(1, JsonParser.parseString(run.out).getAsJsonObject().get("loaded").getAsLong());
    }

    @Test
    void load_badJsonlLine_failsWithLineNumber() throws Exception {
        Path file = write("bad.jsonl", "{\"id\": \"a\", \"fingerprint\": \"01\"}", "", "{\"id\": \"b\", fingerprint: 2}");

        Run run = run("load", "--no-progress", file.toString());

        assertEquals(SimdexCli.EXIT_BAD_INPUT, run.exit);
        assertTrue(run.err.startsWith("error: " + file + ":3: malformed JSON at column"), run.err);
    }

    @Test
    void load_badFingerprintValue_messageNamesLineAndValue() throws Exception {
        Path file = write("bad.jsonl", "{\"id\": \"a\", \"fingerprint\": \"zz\"}");

        Run run = run("load", "--no-progress", file.toString());

        assertEquals(SimdexCli.EXIT_BAD_INPUT, run.exit);
        assertTrue(run.err.contains(file + ":1: not a fingerprint: 'zz'"), run.err);
    }

    @Test
    void load_skipBad_countsAndLoadsTheRest() throws Exception {
        Path file = write("docs.tsv", "a\t00000000000000ff", "no tab here", "\tempty id", "b\ttext");

        Run run = run("load", "--no-progress", "--skip-bad", file.toString());

        assertEquals(0, run.exit, run.err);
        assertEquals(List.of("a", "b"), List.copyOf(fake.documents("default").keySet()));
        assertTrue(run.out.contains("loaded 2 documents") && run.out.contains("skipped 2 bad line(s)"), run.out);
        assertTrue(run.err.contains(file + ":2: expected id<TAB>fingerprint-or-text"), run.err);
    }

    @Test
    void load_unknownExtension_usageError() throws Exception {
        Path file = write("docs.csv", "a,b");

        Run run = run("load", "--no-progress", file.toString());

        assertEquals(ExitCode.USAGE, run.exit);
        assertTrue(run.err.contains("use --format"), run.err);
    }

    @Test
    void load_missingFile_badInput() {
        Run run = run("load", "--no-progress", dir.resolve("nope.jsonl").toString());

        assertEquals(SimdexCli.EXIT_BAD_INPUT, run.exit);
        assertTrue(run.err.contains("no such file"), run.err);
    }

    @Test
    void load_withProgressBar_loadsAndPrintsSummary() throws Exception {
        Path file = write("docs.jsonl", "{\"id\": \"a\", \"text\": \"x\"}", "{\"id\": \"b\", \"text\": \"y\"}");

        Run run = run("load", file.toString());

        assertEquals(0, run.exit, run.err);
        assertTrue(run.out.startsWith("loaded 2 documents"), run.out);
    }

    @Test
    void query_fingerprints_printsMatchesPerProbe() {
        fake.put("default", "near", 0xf1L);
        fake.put("default", "same", 0xf0L);
        fake.put("default", "far", 0x0fL);

        Run run = run("query", "--fingerprint", "00000000000000f0", "--text", "nothing", "-k", "2");

        assertEquals(0, run.exit, run.err);
        assertEquals(String.join("\n",
                "probe 1 fingerprint 00000000000000f0: 2 match(es)",
                "  d=0  00000000000000f0  same",
                "  d=1  00000000000000f1  near",
                "probe 2 text \"nothing\" fingerprint "
                        + Fingerprints.format(FakeSimdex.fingerprintOf("nothing")) + ": 0 match(es)",
                ""), run.out);
    }

    @Test
    void query_json_listsMatchesWithHexFingerprints() {
        fake.put("default", "top", -1L);

        Run run = run("query", "--json", "--fingerprint", "18446744073709551615", "--limit", "1");

        JsonObject match = JsonParser.parseString(run.out).getAsJsonObject().getAsJsonArray("results")
                .get(0).getAsJsonObject().getAsJsonArray("matches").get(0).getAsJsonObject();
        assertEquals("top", match.get("id").getAsString());
        assertEquals("ffffffffffffffff", match.get("fingerprint").getAsString());
        assertEquals(0, match.get("distance").getAsInt());
    }

    @Test
    void optionsBeforeTheCommand_areReadAsTheCommandsOwn() {
        fake.addCollection("news");
        fake.put("news", "n1", 0x10L);
        List<String> targets = new java.util.ArrayList<>();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = SimdexCli.run((t, options) -> {
            targets.add(t);
            return SimdexClient.over(server.channel(), options);
        }, new PrintWriter(out), new PrintWriter(err), "--target", "db7:7411", "-c", "news", "--json", "query", "--fingerprint", "0x11", "-k", "1");

        assertEquals(0, exit, err.toString());
        assertEquals(List.of("db7:7411"), targets);
        JsonObject match = JsonParser.parseString(out.toString()).getAsJsonObject().getAsJsonArray("results")
                .get(0).getAsJsonObject().getAsJsonArray("matches").get(0).getAsJsonObject();
        assertEquals("n1", match.get("id").getAsString());

        // A command's subcommands stay together: the options go after "collections list".
        Run list = run("--target=db7:7411", "--json", "collections", "list");
        assertEquals(0, list.exit, list.err);
        assertTrue(list.out.contains("\"news\""), list.out);

        // An option of another command is judged as the command's: stats has no --insert.
        Run foreign = run("--insert", "stats");
        assertEquals(ExitCode.USAGE, foreign.exit);
        assertTrue(foreign.err.contains("Unknown option: '--insert'"), foreign.err);
        Run unknown = run("--nope", "stats");
        assertEquals(ExitCode.USAGE, unknown.exit);
        assertTrue(unknown.err.contains("--nope"), unknown.err);
    }

    @Test
    void lookup_printsEachIdsFingerprint_orThatItIsNotStored() {
        fake.put("default", "a", 0xabL);

        Run run = run("lookup", "a", "b");
        assertEquals(0, run.exit, run.err);
        assertEquals("a\t00000000000000ab\nb\tnot stored\n", run.out);

        JsonObject json = JsonParser.parseString(run("lookup", "--json", "b", "a").out).getAsJsonObject();
        assertEquals("{\"id\":\"b\",\"found\":false}", json.getAsJsonArray("ids").get(0).toString());
        assertEquals("{\"id\":\"a\",\"found\":true,\"fingerprint\":\"00000000000000ab\"}", json.getAsJsonArray("ids").get(1).toString());
        assertEquals(SimdexCli.EXIT_BAD_INPUT, run("lookup").exit);
    }

    @Test
    void export_writesJsonlThatLoadReads_toStandardOutputOrWholeToAFile() throws Exception {
        for (int i = 0; i < 25; i++) {
            fake.put("default", "d" + i, 0x1000L + i);
        }
        fake.put("default", "max", -1L);
        Run run = run("export", "--page-size", "7");
        assertEquals(0, run.exit, run.err);
        String[] lines = run.out.split("\n");
        assertEquals(26, lines.length, run.out);
        assertEquals("{\"id\":\"d0\",\"fingerprint\":\"0000000000001000\"}", lines[0]);
        assertEquals("{\"id\":\"max\",\"fingerprint\":\"ffffffffffffffff\"}", lines[25]);
        assertEquals("exported 26 document(s) from default\n", run.err);

        Path file = dir.resolve("out.jsonl");
        Run toFile = run("export", "--page-size", "10", "--out", file.toString());
        assertEquals(0, toFile.exit, toFile.err);
        assertEquals("exported 26 document(s) from default to " + file + "\n", toFile.out);
        assertEquals(run.out, Files.readString(file));
        assertFalse(Files.exists(dir.resolve("out.jsonl.part")));

        fake.addCollection("copy");
        assertEquals(0, run("load", "-c", "copy", "--no-progress", file.toString()).exit);
        assertEquals(fake.documents("default"), fake.documents("copy"), "the export loads back as it was");

        Run missing = run("export", "-c", "nope", "--out", dir.resolve("nope.jsonl").toString());
        assertTrue(missing.exit != 0);
        assertFalse(Files.exists(dir.resolve("nope.jsonl")) || Files.exists(dir.resolve("nope.jsonl.part")), "no file from a failed export");
        assertEquals(SimdexCli.EXIT_BAD_INPUT, run("export", "--page-size", "0").exit);
        assertEquals(SimdexCli.EXIT_BAD_INPUT, run("export", "--page-size", "10001").exit);
    }

    @Test
    void delete_idsGivenAndFromAFile_countsTheOnesNotStored() throws Exception {
        assertEquals(0, run("insert", "--id", "a", "--fingerprint", "0x10").exit);
        assertEquals(0, run("insert", "--id", "b", "--fingerprint", "0x20").exit);
        assertEquals(0, run("insert", "--id", "c", "--fingerprint", "0x30").exit);

        Run run = run("delete", "a", "missing");
        assertEquals(0, run.exit, run.err);
        assertEquals("deleted 1 document(s) from default, 1 not found\n", run.out);
        assertEquals(Map.of("b", 0x20L, "c", 0x30L), fake.documents("default"));

        Path file = Files.writeString(dir.resolve("ids.txt"), "b\n\n  c  \n");
        Run json = run("delete", "--file", file.toString(), "--json");
        assertEquals(0, json.exit, json.err);
        JsonObject counts = JsonParser.parseString(json.out).getAsJsonObject();
        assertEquals(2, counts.get("deleted").getAsLong());
        assertEquals(0, counts.get("notFound").getAsLong());
        assertEquals(Map.of(), fake.documents("default"));

        Run none = run("delete");
        assertEquals(SimdexCli.EXIT_BAD_INPUT, none.exit);
        assertTrue(none.err.contains("no ids"), none.err);
    }

    @Test
    void insertThenDedup_nearDocument_reportedAsDuplicate() {
        assertEquals(0, run("insert", "--id", "first", "--fingerprint", "0x10").exit);

        Run run = run("dedup", "--id", "second", "--fingerprint", "0x11", "-k", "1");

        assertEquals(0, run.exit, run.err);
        assertTrue(run.out.startsWith("duplicate second 0000000000000011 of 1 stored document(s):"), run.out);
        assertTrue(run.out.contains("d=1  0000000000000010  first"), run.out);
    }

    @Test
    void dedup_ofAFingerprintStoredUnderManyIds_countsThemAll_andSaysHowManyAreShown() throws Exception {
        Path file = dir.resolve("copies.jsonl");
        StringBuilder lines = new StringBuilder();
        for (int i = 0; i < 102; i++) {
            lines.append("{\"id\": \"copy").append(i).append("\", \"fingerprint\": \"00000000000000ff\"}\n");
        }
        Files.writeString(file, lines);
        assertEquals(0, run("load", "--no-progress", file.toString()).exit);

        Run text = run("dedup", "--id", "late", "--fingerprint", "0xfe", "-k", "1");
        assertEquals(0, text.exit, text.err);
        assertTrue(text.out.startsWith("duplicate late 00000000000000fe of 102 stored document(s), 100 shown:\n"), text.out);
        assertEquals(101, text.out.lines().count(), text.out);

        Run json = run("dedup", "--id", "late", "--fingerprint", "0xfe", "-k", "1", "--json");
        JsonObject decision = JsonParser.parseString(json.out).getAsJsonObject();
        assertEquals(102, decision.get("totalMatches").getAsLong(), json.out);
        assertEquals(100, decision.getAsJsonArray("duplicates").size());
    }

    @Test
    void collectionsStatsAndFingerprint_printResults() {
        assertEquals("created books\n", run("collections", "create", "books").out);
        assertTrue(run("collections", "list").out.contains("books\t"));
        assertTrue(run("stats", "-c", "books").out.contains("documents:      0"));
        assertEquals("deleted books\n", run("collections", "delete", "books").out);
        assertEquals("absent books\n", run("collections", "delete", "books").out);
        assertEquals("{\"name\":\"books\",\"existed\":false}\n", run("collections", "delete", "books", "--json").out);
        assertFalse(run("collections", "list").out.contains("books\t"));
        assertEquals(Fingerprints.format(FakeSimdex.fingerprintOf("a b")) + "\ta b\n",
                run("fingerprint", "--text", "a b").out);
    }

    @Test
    void collectionsUpdate_sendsOnlyTheSettingsGiven_andRefusesToSendNothing() {
        run("collections", "create", "news");
        Run run = run("collections", "update", "news", "--retention", "3d", "--sketch-min-jaccard", "0.5");
        assertEquals(0, run.exit, run.err);
        assertEquals(UpdateCollectionRequest.newBuilder().setName("news").setRetentionSeconds(UInt64Value.of(259_200))
                .setSketchMinJaccard(DoubleValue.of(0.5)).build(), fake.updateRequests.get(0));
        assertTrue(run.out.startsWith("news\t2023-11-14T22:13:20Z\tk=3 "), run.out);
        assertTrue(run.out.contains("retention=PT72H"), run.out);

        run("collections", "update", "news", "--max-distance", "1", "--short-text-min-jaccard", "0.7", "--short-fingerprint-min-jaccard", "0.3");
        assertEquals(UpdateCollectionRequest.newBuilder().setName("news").setMaxDistance(UInt32Value.of(1))
                .setShortTextMinJaccard(DoubleValue.of(0.7)).setShortFingerprintMinJaccard(DoubleValue.of(0.3)).build(), fake.updateRequests.get(1));
        JsonObject json = JsonParser.parseString(run("collections", "update", "news", "--max-distance", "2", "--json").out).getAsJsonObject();
        assertEquals(2, json.getAsJsonObject("settings").get("maxDistance").getAsInt());

        Run nothing = run("collections", "update", "news");
        assertEquals(SimdexCli.EXIT_BAD_INPUT, nothing.exit);
        assertTrue(nothing.err.contains("nothing to change"), nothing.err);
        assertEquals(3, fake.updateRequests.size(), "no call made");
        assertEquals(SimdexCli.EXIT_BAD_INPUT, run("collections", "update", "news", "--retention", "soon").exit);
        assertEquals(SimdexCli.EXIT_RPC_ERROR, run("collections", "update", "missing", "--max-distance", "1").exit);
    }

    @Test
    void rpcError_printsStatusAndExitsTwo() {
        Run run = run("stats", "-c", "missing");

        assertEquals(SimdexCli.EXIT_RPC_ERROR, run.exit);
        assertEquals("error: NOT_FOUND: " + FakeSimdex.notFound("missing") + "\n", run.err);
    }

    @Test
    void deadline_serverNeverAnswers_deadlineExceeded() throws Exception {
        SimdexGrpc.SimdexImplBase silent = new SimdexGrpc.SimdexImplBase() {
            @Override
            public void stats(StatsRequest request, StreamObserver<StatsResponse> responseObserver) {
                // Never answers.
            }
        };
        try (InProcessServer hung = InProcessServer.start(silent)) {
            Run run = run(hung, "stats", "--deadline", "0.2");

            assertEquals(SimdexCli.EXIT_RPC_ERROR, run.exit);
            assertTrue(run.err.startsWith("error: DEADLINE_EXCEEDED"), run.err);
        }
    }

    @Test
    void target_realNettyServer_connectsOverTcp() throws Exception {
        Server netty = Grpc.newServerBuilderForPort(0, InsecureServerCredentials.create())
                .addService(fake).build().start();
        try {
            StringWriter out = new StringWriter();
            int exit = SimdexCli.run(ClientFactory.GRPC, new PrintWriter(out), new PrintWriter(new StringWriter()),
                    "stats", "--json", "--target", "localhost:" + netty.getPort());

            assertEquals(0, exit);
            JsonObject stats = JsonParser.parseString(out.toString()).getAsJsonObject();
            assertEquals("default", stats.get("collection").getAsString());
        } finally {
            netty.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void badFingerprintOption_usageErrorNamesValue() {
        Run run = run("query", "--fingerprint", "xyz");

        assertEquals(ExitCode.USAGE, run.exit);
        assertTrue(run.err.contains("not a fingerprint: 'xyz'"), run.err);
    }

    @Test
    void usageErrors_exitWithUsageCode() {
        assertEquals(ExitCode.USAGE, run().exit);
        assertEquals(ExitCode.USAGE, run("insert", "--id", "a").exit);
        assertEquals(ExitCode.USAGE, run("insert", "--id", "a", "--text", "t", "--fingerprint", "1").exit);
        assertEquals(ExitCode.USAGE, run("stats", "--deadline", "0").exit);
        assertEquals(ExitCode.USAGE, run("collections").exit);
    }

    private Path write(String name, String... lines) throws Exception {
        return Files.write(dir.resolve(name), List.of(lines));
    }

    private Run run(String... args) {
        return run(server, args);
    }

    private static Run run(InProcessServer target, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = SimdexCli.run((t, options) -> SimdexClient.over(target.channel(), options),
                new PrintWriter(out), new PrintWriter(err), args);
        return new Run(exit, out.toString().replace(System.lineSeparator(), "\n"),
                err.toString().replace(System.lineSeparator(), "\n"));
    }

    private record Run(int exit, String out, String err) {
    }
}
