package io.simdex.client.batch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.simdex.client.FakeSimdex;
import io.simdex.client.Fingerprints;
import io.simdex.client.InProcessServer;
import io.simdex.client.SimdexClient;
import io.simdex.client.batch.SequentialReference.Expected;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class DedupBatchTest {
    private static final int K = 3;

    private final FakeSimdex fake = new FakeSimdex();
    private InProcessServer server;
    private SimdexClient client;

    @TempDir
    Path dir;

    @BeforeEach
    void start() throws Exception {
        server = InProcessServer.start(fake);
        client = SimdexClient.over(server.channel());
    }

    @AfterEach
    void stop() throws Exception {
        server.close();
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3})
    void run_plantedDistancesZeroToFive_matchesSequentialReference(long seed) throws Exception {
        PlantedBatch p = PlantedBatch.generate(seed, 300, 200);
        p.index.forEach((id, fp) -> fake.put("default", id, fp));

        Map<String, JsonObject> out = byId(run(p.write(dir.resolve("batch.jsonl")), false, 7));

        Map<String, Expected> expected = SequentialReference.decide(p.batch, p.index, K);
        assertMatchesReference(expected, out);
        long dropsAtFourOrFive = out.values().stream().filter(o -> o.has("distance") && o.get("distance").getAsInt() > K).count();
        assertEquals(0, dropsAtFourOrFive, "a distance of 4 or 5 is never a duplicate");
        for (String reason : List.of("unique", "near-duplicate-in-batch", "near-duplicate-in-index")) {
            assertTrue(out.values().stream().anyMatch(o -> o.get("reason").getAsString().equals(reason)), reason);
        }
        for (int d = 0; d <= K; d++) {
            int distance = d;
            assertTrue(out.values().stream().anyMatch(o -> o.has("distance") && o.get("distance").getAsInt() == distance),
                    "some drop at distance " + d);
        }
    }

    @Test
    void run_survivorFoundInIndex_readmitsTheDocumentsOnlyItBlocked() throws Exception {
        long x = 0x0123456789abcdefL;
        long a = x ^ 1L;                 // distance 1 from the stored x
        long b = a ^ (0b1110L << 20);    // 3 from a, 4 from x
        fake.put("default", "x", x);
        Path file = Files.write(dir.resolve("b.jsonl"), List.of(
                PlantedBatch.fingerprintLine("a", a), PlantedBatch.fingerprintLine("b", b)));

        Map<String, JsonObject> out = byId(run(file, false, 1000));

        assertEquals("near-duplicate-in-index", out.get("a").get("reason").getAsString());
        assertEquals("[\"x\"]", out.get("a").get("duplicate_of").toString());
        assertEquals("keep", out.get("b").get("decision").getAsString(), "b is 4 from x and a is not kept");
        assertEquals(List.of(1, 1), fake.queryCalls, "the second round queries only b");
    }

    @Test
    void run_insert_storesExactlyTheReferenceKeptSet() throws Exception {
        PlantedBatch p = PlantedBatch.generate(11, 200, 100);
        p.index.forEach((id, fp) -> fake.put("default", id, fp));
        Map<String, Expected> expected = SequentialReference.decide(p.batch, p.index, K);

        Map<String, JsonObject> out = byId(run(p.write(dir.resolve("batch.jsonl")), true, 50));

        assertMatchesReference(expected, out);
        Map<String, Long> stored = fake.documents("default");
        p.index.keySet().forEach(stored::remove);
        List<String> keptIds = expected.entrySet().stream().filter(e -> e.getValue().keep()).map(Map.Entry::getKey).toList();
        assertEquals(keptIds, new ArrayList<>(stored.keySet()), "stored in priority (here input) order");
    }

    @Test
    void run_insertTwice_secondRunFindsEverythingInTheIndex() throws Exception {
        PlantedBatch p = PlantedBatch.generate(5, 50, 50);
        Path file = p.write(dir.resolve("batch.jsonl"));
        run(file, true, 1000);

        List<JsonObject> second = run(file, true, 1000);

        assertTrue(second.stream().allMatch(o -> o.get("decision").getAsString().equals("drop")));
        JsonObject first = second.get(0);
        assertEquals(first.get("id").getAsString(), first.get("duplicate_of").getAsJsonArray().get(0).getAsString(),
                "a stored document finds itself at distance 0");
    }

    @Test
    void run_output_oneLinePerDocumentInInputOrder() throws Exception {
        PlantedBatch p = PlantedBatch.generate(3, 100, 100);

        List<JsonObject> out = run(p.write(dir.resolve("batch.jsonl")), false, 13);

        assertEquals(new ArrayList<>(p.batch.keySet()), out.stream().map(o -> o.get("id").getAsString()).toList());
        for (JsonObject o : out) {
            long fp = p.batch.get(o.get("id").getAsString());
            assertEquals(Fingerprints.format(fp), o.get("fingerprint").getAsString());
        }
    }

    @Test
    void run_seedExampleWithCrawlFields_appliesUrlThenContentRule() throws Exception {
        Path file = Files.write(dir.resolve("seed.jsonl"), List.of(
                "{\"id\": \"1\", \"url\": \"a.cn\", \"fetch_time\": \"2011-01-01\", \"text\": \"content a\", \"score\": 2}",
                "{\"id\": \"2\", \"url\": \"a.cn\", \"fetch_time\": \"2011-07-01\", \"text\": \"content b\", \"score\": 4}",
                "{\"id\": \"3\", \"url\": \"a.cn\", \"fetch_time\": \"2011-05-01\", \"text\": \"content a\", \"score\": 1}",
                "{\"id\": \"4\", \"url\": \"b.cn\", \"fetch_time\": \"2011-04-01\", \"text\": \"Content   B\", \"score\": 2}"));

        Map<String, JsonObject> out = byId(run(file, false, 1000));

        assertEquals("keep", out.get("2").get("decision").getAsString());
        assertDrop(out.get("1"), "older-fetch-of-url", "2");
        assertDrop(out.get("3"), "older-fetch-of-url", "2");
        // Same text up to case and spaces, though the fake server gives the two texts unrelated fingerprints.
        assertDrop(out.get("4"), "exact-duplicate", "2");
    }

    @Test
    void run_scores_higherScoreWinsANearDuplicatePair() throws Exception {
        Path file = Files.write(dir.resolve("s.jsonl"), List.of(
                "{\"id\": \"low\", \"fingerprint\": \"00000000000000ff\", \"score\": 0.5}",
                "{\"id\": \"high\", \"fingerprint\": \"00000000000000fe\", \"score\": 3}"));

        Map<String, JsonObject> out = byId(run(file, false, 1000));

        assertEquals("keep", out.get("high").get("decision").getAsString());
        assertDrop(out.get("low"), "near-duplicate-in-batch", "high");
        assertEquals(1, out.get("low").get("distance").getAsInt());
    }

    @Test
    void run_manyIdenticalFingerprints_oneKeptRestListTheKeptOne() throws Exception {
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < 5000; i++) {
            lines.add(PlantedBatch.fingerprintLine("d" + i, 42L));
        }

        List<JsonObject> out = run(Files.write(dir.resolve("same.jsonl"), lines), false, 1000);

        assertEquals("keep", out.get(0).get("decision").getAsString());
        assertTrue(out.subList(1, out.size()).stream().allMatch(o ->
                o.get("duplicate_of").toString().equals("[\"d0\"]") && o.get("distance").getAsInt() == 0));
    }

    @Test
    void run_badLine_namesFileAndLine() throws Exception {
        Path file = Files.write(dir.resolve("bad.jsonl"), List.of(
                PlantedBatch.fingerprintLine("a", 1), "", "{\"id\": \"b\"}"));

        BatchInputException e = assertThrows(BatchInputException.class, () -> run(file, false, 1000));

        assertTrue(e.getMessage().endsWith("bad.jsonl:3: needs \"fingerprint\" or a non-blank \"text\""), e.getMessage());
    }

    @Test
    void run_randomTextsAgainstRandomIndex_everyDecisionMatchesReference() throws Exception {
        SplittableRandom random = new SplittableRandom(99);
        Map<String, Long> batch = new LinkedHashMap<>();
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < 400; i++) {
            String text = "text number " + random.nextInt(300);
            String id = "t" + i;
            lines.add("{\"id\": \"" + id + "\", \"text\": \"" + text + "\"}");
            batch.putIfAbsent(id, FakeSimdex.fingerprintOf(text));
        }
        List<JsonObject> out = run(Files.write(dir.resolve("t.jsonl"), lines), false, 64);

        for (JsonObject o : out) {
            String reason = o.get("reason").getAsString();
            assertTrue(reason.equals("unique") || reason.equals("exact-duplicate"), reason);
            assertEquals(Fingerprints.format(batch.get(o.get("id").getAsString())), o.get("fingerprint").getAsString());
        }
        assertEquals(out.stream().filter(o -> o.get("decision").getAsString().equals("keep")).count(),
                batch.values().stream().distinct().count());
    }

    static void assertMatchesReference(Map<String, Expected> expected, Map<String, JsonObject> out) {
        assertEquals(expected.keySet(), out.keySet());
        expected.forEach((id, e) -> {
            JsonObject o = out.get(id);
            String reason = o.get("reason").getAsString();
            assertEquals(e.keep() ? "keep" : "drop", o.get("decision").getAsString(), id + " " + o);
            if (e.keep()) {
                assertEquals("unique", reason);
                return;
            }
            List<String> listed = strings(o.get("duplicate_of"));
            if (reason.equals("near-duplicate-in-batch")) {
                assertFalse(e.keptBefore().isEmpty(), id + " " + o);
                assertEquals(e.keptBefore().subList(0, Math.min(8, e.keptBefore().size())), listed, id);
                assertEquals(e.nearestKept(), o.get("distance").getAsInt(), id);
            } else {
                assertEquals("near-duplicate-in-index", reason, id);
                assertFalse(e.stored().isEmpty(), id + " " + o);
                assertTrue(e.stored().containsAll(listed), id + " lists " + listed + ", stored near: " + e.stored());
                assertEquals(e.nearestStored(), o.get("distance").getAsInt(), id);
            }
        });
    }

    private static void assertDrop(JsonObject o, String reason, String duplicateOf) {
        assertEquals("drop", o.get("decision").getAsString(), o.toString());
        assertEquals(reason, o.get("reason").getAsString(), o.toString());
        assertEquals(List.of(duplicateOf), strings(o.get("duplicate_of")), o.toString());
    }

    private List<JsonObject> run(Path file, boolean insert, int batchSize) throws Exception {
        StringWriter out = new StringWriter();
        new DedupBatch("default", K, insert, batchSize, 3).run(client, file, out, Progress.NONE);
        List<JsonObject> lines = new ArrayList<>();
        for (String line : out.toString().split("\n")) {
            lines.add(JsonParser.parseString(line).getAsJsonObject());
        }
        return lines;
    }

    private static Map<String, JsonObject> byId(List<JsonObject> lines) {
        Map<String, JsonObject> out = new LinkedHashMap<>();
        lines.forEach(o -> out.put(o.get("id").getAsString(), o));
        return out;
    }

    private static List<String> strings(JsonElement array) {
        List<String> out = new ArrayList<>();
        array.getAsJsonArray().forEach(e -> out.add(e.getAsString()));
        return out;
    }
}
