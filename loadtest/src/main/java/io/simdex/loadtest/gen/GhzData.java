package io.simdex.loadtest.gen;

import com.google.gson.stream.JsonWriter;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;

/**
 * ghz call-data files: JSON arrays of request messages in the protobuf JSON mapping (lowerCamelCase
 * field names; fixed64 as a decimal string, since JSON numbers cannot hold 64 bits exactly).
 *
 * <p>For a unary method ghz sends element {@code requestNumber % length} of the array with each
 * call; for the client-streaming BulkLoad it sends the whole array as one stream.
 */
final class GhzData {
    private final long seed;
    private final long storedCount;
    private final SplittableRandom random;

    GhzData(long seed, long storedCount, SplittableRandom random) {
        this.seed = seed;
        this.storedCount = storedCount;
        this.random = random;
    }

    /** {@code requests} QueryRequests of {@code probes} planted probes each, max_distance 3. */
    void queries(Path file, int requests, int probes) throws IOException {
        long n = 0;
        try (JsonWriter json = open(file)) {
            json.beginArray();
            for (int r = 0; r < requests; r++) {
                json.beginObject().name("probes").beginArray();
                for (int p = 0; p < probes; p++) {
                    long fp = Fingerprints.planted(seed, storedCount, n++, random).fingerprint();
                    json.beginObject().name("fingerprint").value(Long.toUnsignedString(fp)).endObject();
                }
                json.endArray().name("maxDistance").value(3).endObject();
            }
            json.endArray();
        }
    }

    /** DedupRequests: even documents duplicate a stored one (distance 0..3), odd ones are fresh. */
    void dedups(Path file, int requests, int documents) throws IOException {
        try (JsonWriter json = open(file)) {
            json.beginArray();
            for (int r = 0; r < requests; r++) {
                json.beginObject().name("documents").beginArray();
                for (int d = 0; d < documents; d++) {
                    long fp = d % 2 == 0
                            ? Fingerprints.planted(seed, storedCount, d / 2 % 4, random).fingerprint()
                            : Fingerprints.fresh(random);
                    document(json, "ghz-dedup-" + r + "-" + d, fp);
                }
                json.endArray().name("maxDistance").value(3).endObject();
            }
            json.endArray();
        }
    }

    /**
     * Insert or BulkLoad messages over stored fingerprints 0 .. requests * documents - 1, ids as the
     * loader gives them, so replaying the file onto a loaded index changes nothing.
     */
    void storedBatches(Path file, int requests, int documents) throws IOException {
        long i = 0;
        try (JsonWriter json = open(file)) {
            json.beginArray();
            for (int r = 0; r < requests; r++) {
                json.beginObject().name("documents").beginArray();
                for (int d = 0; d < documents; d++, i++) {
                    document(json, Fingerprints.storedId(i), Fingerprints.stored(seed, i));
                }
                json.endArray().endObject();
            }
            json.endArray();
        }
    }

    /**
     * DedupRequests of {@code texts} texts of {@code words} words, English and Chinese in turn by
     * pair: each even text new, each odd one a near-duplicate of the text before it
     * ({@code edits} words replaced), which the server decides against that earlier text of the
     * same request. Replayed (ghz cycles the array), the texts stored the first time are answered
     * as stored (Dedup is idempotent by id), the near-duplicates as duplicates again.
     */
    void textDedups(Path file, int requests, int texts, int words, int edits) throws IOException {
        TextCorpus corpus = new TextCorpus(seed);
        try (JsonWriter json = open(file)) {
            json.setHtmlSafe(false);
            json.beginArray();
            for (int r = 0; r < requests; r++) {
                json.beginObject().name("documents").beginArray();
                String previous = null;
                for (int t = 0; t < texts; t++) {
                    TextCorpus.Language language = t / 2 % 2 == 0 ? TextCorpus.Language.ENGLISH : TextCorpus.Language.CHINESE;
                    String text = t % 2 == 0 ? corpus.document(language, words) : corpus.nearDuplicate(previous, language, edits);
                    json.beginObject().name("id").value("ghz-text-" + r + "-" + t).name("text").value(text).endObject();
                    previous = text;
                }
                json.endArray().endObject();
            }
            json.endArray();
        }
    }

    /**
     * CheckUrlsRequests of job {@code ghz_crawl} with {@code urls} URLs each, kept 7 days: even
     * ones the same in every request (seen after the first), odd ones new to the file, as a
     * crawler's frontier mixes links it has and has not fetched.
     */
    void urlChecks(Path file, int requests, int urls) throws IOException {
        try (JsonWriter json = open(file)) {
            json.beginArray();
            for (int r = 0; r < requests; r++) {
                json.beginObject().name("job").value("ghz_crawl").name("urls").beginArray();
                for (int u = 0; u < urls; u++) {
                    json.value(u % 2 == 0 ? "https://site" + u % 97 + ".example/news/" + u
                            : "https://site" + u % 89 + ".example/item?id=" + Long.toHexString(random.nextLong()));
                }
                json.endArray().name("ttlSeconds").value(Long.toString(7 * 24 * 3600)).endObject();
            }
            json.endArray();
        }
    }

    private static void document(JsonWriter json, String id, long fp) throws IOException {
        json.beginObject().name("id").value(id).name("fingerprint").value(Long.toUnsignedString(fp)).endObject();
    }

    private static JsonWriter open(Path file) throws IOException {
        Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8);
        return new JsonWriter(w);
    }
}
