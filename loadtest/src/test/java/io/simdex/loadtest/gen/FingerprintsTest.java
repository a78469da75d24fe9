package io.simdex.loadtest.gen;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.simdex.fingerprint.Hamming;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FingerprintsTest {
    @TempDir
    Path dir;

    @Test
    void storedIdOfAGivenSize_isZeroPadded_distinctPerNumber_andPlainWhenItCannotBePadded() {
        assertEquals("d000000000000042", Fingerprints.storedId(42, 16));
        assertEquals(16, Fingerprints.storedId(49_999_999, 16).length());
        assertNotEquals(Fingerprints.storedId(7, 16), Fingerprints.storedId(70, 16));
        assertEquals("d42", Fingerprints.storedId(42, 0));
        assertEquals("d123456", Fingerprints.storedId(123_456, 5), "too long to pad: as storedId(i)");
        assertEquals(Fingerprints.storedId(9), Fingerprints.storedId(9, 2));
    }

    @Test
    void planted_isAtItsStatedDistanceFromItsSource_cyclingZeroToFive() {
        SplittableRandom random = new SplittableRandom(1);
        for (long n = 0; n < 6_000; n++) {
            Fingerprints.Planted p = Fingerprints.planted(42, 1_000, n, random);
            assertEquals(n % 6, p.distance());
            assertEquals(p.distance(), Hamming.distance(p.fingerprint(), Fingerprints.stored(42, p.sourceIndex())));
            assertTrue(p.sourceIndex() >= 0 && p.sourceIndex() < 1_000);
        }
    }

    @Test
    void stored_sameSeedAndIndex_sameFingerprint_otherSeed_differs() {
        assertEquals(Fingerprints.stored(42, 7), Fingerprints.stored(42, 7));
        assertNotEquals(Fingerprints.stored(42, 7), Fingerprints.stored(43, 7));
        assertNotEquals(Fingerprints.stored(42, 7), Fingerprints.stored(42, 8));
    }

    @Test
    void hex_isSixteenDigitsAndRoundTrips() {
        assertEquals("000000000000002a", Fingerprints.hex(42));
        assertEquals("ffffffffffffffff", Fingerprints.hex(-1));
        assertEquals(-1L, Fingerprints.parseHex("ffffffffffffffff"));
    }

    @Test
    void gen_probesFile_distanceFieldIsTheHammingDistanceToTheSourceLine() throws IOException {
        int status = new CommandLine(new GenCommand()).execute("--out", dir.toString(), "--count", "500", "--probes", "120",
                "--texts", "4", "--ghz-requests", "10", "--ghz-batches", "3", "--ghz-batch", "7");
        assertEquals(0, status);

        List<String> stored = Files.readAllLines(dir.resolve("stored.jsonl"));
        assertEquals(500, stored.size());
        int[] perDistance = new int[6];
        for (String line : Files.readAllLines(dir.resolve("probes.jsonl"))) {
            JsonObject probe = JsonParser.parseString(line).getAsJsonObject();
            int source = Integer.parseInt(probe.get("source").getAsString().substring(1));
            JsonObject src = JsonParser.parseString(stored.get(source)).getAsJsonObject();
            long a = Fingerprints.parseHex(probe.get("fingerprint").getAsString());
            long b = Fingerprints.parseHex(src.get("fingerprint").getAsString());
            int distance = probe.get("distance").getAsInt();
            assertEquals(distance, Hamming.distance(a, b), line);
            perDistance[distance]++;
        }
        for (int d = 0; d <= 5; d++) {
            assertEquals(20, perDistance[d], "probes at distance " + d);
        }
    }

    @Test
    void gen_ghzFiles_areArraysOfRequestsWithDecimalStringFingerprints() throws IOException {
        new CommandLine(new GenCommand()).execute("--out", dir.toString(), "--count", "100", "--probes", "6",
                "--texts", "2", "--ghz-requests", "5", "--ghz-batches", "2", "--ghz-batch", "3");

        JsonArray unary = JsonParser.parseString(Files.readString(dir.resolve("ghz/query-unary.json"))).getAsJsonArray();
        assertEquals(5, unary.size());
        JsonObject first = unary.get(0).getAsJsonObject();
        assertEquals(3, first.get("maxDistance").getAsInt());
        String fp = first.getAsJsonArray("probes").get(0).getAsJsonObject().get("fingerprint").getAsString();
        Long.parseUnsignedLong(fp); // decimal, as the protobuf JSON mapping writes fixed64
        JsonArray bulk = JsonParser.parseString(Files.readString(dir.resolve("ghz/bulkload.json"))).getAsJsonArray();
        assertEquals(2, bulk.size());
        for (JsonElement message : bulk) {
            assertEquals(3, message.getAsJsonObject().getAsJsonArray("documents").size());
        }
        JsonObject doc = bulk.get(1).getAsJsonObject().getAsJsonArray("documents").get(0).getAsJsonObject();
        assertEquals("d3", doc.get("id").getAsString());
        assertEquals(Long.toUnsignedString(Fingerprints.stored(42, 3)), doc.get("fingerprint").getAsString());
        assertEquals(4, Files.readAllLines(dir.resolve("texts.jsonl")).size());
    }
}
