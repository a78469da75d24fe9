package io.simdex.client.batch;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.simdex.client.ClientOptions;
import io.simdex.client.Doc;
import io.simdex.client.ProbeMatches;
import io.simdex.client.SimdexClient;
import io.simdex.router.EmbeddedSimdex;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Texts sent to the index as texts: against the embedded server, whose default collection
 * verifies texts, a batch finds and stores what Dedup of the texts would.
 */
class BatchTextsTest {
    /** One word apart from each other: their fingerprints differ by more than 3 bits. */
    private static final String HEAVY = "Storm warnings were issued for the northern coast as heavy winds are expected tonight and tomorrow morning";
    private static final String STRONG = HEAVY.replace("heavy", "strong");
    private static final String POWERFUL = HEAVY.replace("heavy", "powerful");

    @TempDir
    Path dir;
    private EmbeddedSimdex server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void fileLines_offsetsOfEachLine_crlfMultibyteAndNoFinalNewline_readAgainByBatchTexts() throws Exception {
        String first = "{\"id\": \"a\", \"text\": \"北京 storm\"}";
        String second = "{\"id\": \"b\", \"fingerprint\": \"00000000000000ff\"}";
        String third = "{\"id\": \"c\", \"text\": \"last line, no newline\"}";
        Path file = Files.write(dir.resolve("in.jsonl"), (first + "\r\n\n" + second + "\n" + third).getBytes(StandardCharsets.UTF_8));
        List<Long> offsets = new ArrayList<>();
        List<String> lines = new ArrayList<>();
        try (FileLines in = new FileLines(file)) {
            for (String line; (line = in.next()) != null; ) {
                lines.add(line);
                offsets.add(in.lineStart());
            }
        }
        assertEquals(List.of(first, "", second, third), lines);
        long afterFirst = first.getBytes(StandardCharsets.UTF_8).length + 2;
        assertEquals(List.of(0L, afterFirst, afterFirst + 1, afterFirst + 2 + second.length()), offsets);
        try (BatchTexts texts = new BatchTexts(file)) {
            assertEquals("北京 storm", texts.text(offsets.get(0)));
            assertEquals("last line, no newline", texts.text(offsets.get(3)));
        }
    }

    @Test
    void fileLines_aLineLongerThanTheReadBuffer_wholeAndAtItsOffset() throws Exception {
        String text = "长".repeat(50_000) + "x".repeat(50_000);
        String first = "{\"id\": \"a\", \"text\": \"" + text + "\"}";
        Path file = Files.write(dir.resolve("long.jsonl"), (first + "\n{\"id\": \"b\", \"text\": \"end\"}\n").getBytes(StandardCharsets.UTF_8));
        try (FileLines in = new FileLines(file); BatchTexts texts = new BatchTexts(file)) {
            assertEquals(first, in.next());
            assertEquals("{\"id\": \"b\", \"text\": \"end\"}", in.next());
            assertEquals(first.getBytes(StandardCharsets.UTF_8).length + 1, in.lineStart());
            assertEquals(null, in.next());
            assertEquals(text, texts.text(0));
            assertEquals("end", texts.text(first.getBytes(StandardCharsets.UTF_8).length + 1));
        }
    }

    @Test
    void read_aLineThatIsNotUtf8_namesItsLine() throws Exception {
        byte[] bad = {'{', '"', 'i', 'd', '"', ':', '"', (byte) 0xC3, (byte) 0x28, '"', '}'};
        Path file = dir.resolve("bad.jsonl");
        Files.write(file, ("{\"id\": \"a\", \"fingerprint\": \"1\"}\n").getBytes(StandardCharsets.UTF_8));
        Files.write(file, bad, java.nio.file.StandardOpenOption.APPEND);
        BatchInputException e = assertThrows(BatchInputException.class,
                () -> new DedupBatch("default", 3, false, 10, 1).run(null, file, new StringWriter(), Progress.NONE));
        assertTrue(e.getMessage().endsWith("bad.jsonl:2: not valid UTF-8"), e.getMessage());
    }

    @Test
    void withoutInsert_aTextVerifiedBeyondTheDistance_isADuplicateInTheIndex() throws Exception {
        try (SimdexClient client = start()) {
            client.insert("default", List.of(Doc.ofText("stored", HEAVY)));
            Path batch = batch(line("new", STRONG));

            List<JsonObject> decisions = run(client, batch, false);

            assertEquals("drop", decisions.get(0).get("decision").getAsString(), decisions.toString());
            assertEquals("near-duplicate-in-index", decisions.get(0).get("reason").getAsString());
            assertEquals("stored", decisions.get(0).getAsJsonArray("duplicate_of").get(0).getAsString());
            assertTrue(decisions.get(0).get("distance").getAsInt() > 3, "found beyond the fingerprint distance: " + decisions);
        }
    }

    @Test
    void insert_storesTextsAsTexts_verifiedAgainstEachOther_andFoundByLaterVerifiedQueries() throws Exception {
        try (SimdexClient client = start()) {
            Path batch = batch(line("first", HEAVY), line("second", STRONG));

            List<JsonObject> decisions = run(client, batch, true);

            assertEquals("keep", decisions.get(0).get("decision").getAsString(), decisions.toString());
            assertEquals("drop", decisions.get(1).get("decision").getAsString(), decisions.toString());
            assertEquals("first", decisions.get(1).getAsJsonArray("duplicate_of").get(0).getAsString());
            // Stored with what verification reads: a later text one word off finds it beyond 3 bits.
            ProbeMatches later = client.queryTexts("default", List.of(POWERFUL), 3, 10).get(0);
            assertEquals(List.of("first"), later.matches().stream().map(m -> m.id()).toList(), later.toString());
        }
    }

    private SimdexClient start() {
        server = EmbeddedSimdex.start(dir.resolve("data"), 2, "127.0.0.1", 0, 10_000);
        return SimdexClient.connect("127.0.0.1:" + server.port(), ClientOptions.DEFAULTS);
    }

    private static String line(String id, String text) {
        return "{\"id\": \"" + id + "\", \"text\": \"" + text + "\"}";
    }

    private Path batch(String... lines) throws Exception {
        return Files.write(dir.resolve("batch.jsonl"), List.of(lines));
    }

    private static List<JsonObject> run(SimdexClient client, Path batch, boolean insert) throws Exception {
        StringWriter out = new StringWriter();
        new DedupBatch("default", 3, insert, 100, 2).run(client, batch, out, Progress.NONE);
        return out.toString().lines().map(l -> JsonParser.parseString(l).getAsJsonObject()).toList();
    }
}
