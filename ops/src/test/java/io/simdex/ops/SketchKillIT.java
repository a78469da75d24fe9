package io.simdex.ops;

import io.simdex.proto.v1.CollectionSettings;
import io.simdex.proto.v1.CreateCollectionRequest;
import io.simdex.proto.v1.Document;
import io.simdex.proto.v1.InsertRequest;
import io.simdex.proto.v1.Match;
import io.simdex.proto.v1.Probe;
import io.simdex.proto.v1.QueryRequest;
import io.simdex.proto.v1.QueryResult;
import io.simdex.proto.v1.SimdexGrpc;
import io.simdex.proto.v1.SketchSettings;
import io.simdex.proto.v1.StatsRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A collection with sketch verification in the embedded default, killed by SIGKILL after its
 * texts were acknowledged: after the restart every text is still verified by its own sketch
 * (kept by fingerprint), and an edited copy by the same one.
 */
class SketchKillIT {
    private static final int N = 2_000;
    private static final int BATCH = 500;

    @TempDir
    Path dir;

    @Test
    void sketchCollection_killNineAndRestart_everyTextVerifiedByItsKeptSketch() throws Exception {
        SplittableRandom rnd = new SplittableRandom(12);
        String[] texts = new String[N];
        for (int i = 0; i < N; i++) {
            texts[i] = text(rnd, 60);
        }
        Path data = dir.resolve("data");
        int port = SimdexProcess.freePort();
        String[] embedded = {"embedded", "--data", data.toString(), "--port", Integer.toString(port), "--expected", "100000"};
        try (SimdexProcess server = SimdexProcess.start(dir.resolve("run1.log"), embedded)) {
            server.awaitServing(port, "simdex.v1.Simdex");
            EmbeddedProcessIT.withStub(port, stub -> {
                stub.createCollection(CreateCollectionRequest.newBuilder().setName("s")
                        .setSettings(CollectionSettings.newBuilder().setSketch(SketchSettings.newBuilder().setEnabled(true).setCandidateDistance(7))).build());
                for (int from = 0; from < N; from += BATCH) {
                    InsertRequest.Builder req = InsertRequest.newBuilder().setCollection("s");
                    for (int i = from; i < from + BATCH; i++) {
                        req.addDocuments(Document.newBuilder().setId("t" + i).setText(texts[i]));
                    }
                    stub.insert(req.build());
                }
            });
            server.kill9();
        }
        int[] editedFound = {0};
        try (SimdexProcess server = SimdexProcess.start(dir.resolve("run2.log"), embedded)) {
            server.awaitServing(port, "simdex.v1.Simdex");
            EmbeddedProcessIT.withStub(port, stub -> {
                assertEquals(N, stub.stats(StatsRequest.newBuilder().setCollection("s").build()).getDocuments());
                for (int from = 0; from < N; from += BATCH) {
                    QueryRequest.Builder same = QueryRequest.newBuilder().setCollection("s");
                    QueryRequest.Builder edited = QueryRequest.newBuilder().setCollection("s");
                    for (int i = from; i < from + BATCH; i++) {
                        same.addProbes(Probe.newBuilder().setText(texts[i]));
                        edited.addProbes(Probe.newBuilder().setText(texts[i].replaceFirst(" \\S+ ", " changed ")));
                    }
                    List<QueryResult> sameResults = stub.query(same.build()).getResultsList();
                    List<QueryResult> editedResults = stub.query(edited.build()).getResultsList();
                    for (int i = from; i < from + BATCH; i++) {
                        Match own = match(sameResults.get(i - from), "t" + i);
                        assertEquals(1.0f, own.getSimilarity(), "t" + i + " verified by its own sketch");
                        // An edited copy is a candidate when its fingerprints leave it within 7 bits, the collection's
                        // candidate distance (nearly always: one word of 60).
                        for (Match m : editedResults.get(i - from).getMatchesList()) {
                            assertTrue(m.getSimilarity() >= 0.4f && m.getSimilarity() <= 1, "edited t" + i + " matched " + m);
                            editedFound[0] += m.getId().equals("t" + i) ? 1 : 0;
                        }
                    }
                }
            });
            assertTrue(editedFound[0] >= N * 9 / 10, editedFound[0] + " of " + N + " edited copies found");
            server.stop();
        }
        // The restart's log says once a store that it recovers it, without Chronicle Map's pair of
        // warnings per file or its banner.
        String log = Files.readString(dir.resolve("run2.log"));
        assertTrue(log.contains(data.resolve("shard-0").resolve("s").resolve("g-0") + " was not closed cleanly"), log);
        assertFalse(log.contains("Recovery operation needs exclusive access") || log.contains("Do not use recovery"), log);
        assertFalse(log.contains("Leave your e-mail"), log);
    }

    private static Match match(QueryResult r, String id) {
        return r.getMatchesList().stream().filter(m -> m.getId().equals(id)).findFirst()
                .orElseThrow(() -> new AssertionError(id + " not found: " + r.getMatchesList()));
    }

    private static String text(SplittableRandom rnd, int words) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < words; i++) {
            b.append(i == 0 ? "" : " ");
            for (int k = 3 + rnd.nextInt(6); k > 0; k--) {
                b.append((char) ('a' + rnd.nextInt(26)));
            }
        }
        return b.toString();
    }
}
