package io.simdex.loadtest.gen;

import com.google.gson.stream.JsonWriter;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;

/**
 * The JSONL files, one JSON object per line, as the simdex CLI's {@code insert --format jsonl}
 * reads them: {@code {"id": ..., "fingerprint": "16 hex digits"}} or {@code {"id": ..., "text": ...}}.
 * Probe and near-duplicate lines add {@code "source"} (the stored id) and {@code "distance"}.
 */
final class JsonlData {
    private final long seed;
    private final SplittableRandom random;

    JsonlData(long seed, SplittableRandom random) {
        this.seed = seed;
        this.random = random;
    }

    /** Stored fingerprints 0..count-1. */
    void stored(Path file, long count) throws IOException {
        try (BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            for (long i = 0; i < count; i++) {
                w.write("{\"id\":\"" + Fingerprints.storedId(i) + "\",\"fingerprint\":\""
                        + Fingerprints.hex(Fingerprints.stored(seed, i)) + "\"}\n");
            }
        }
    }

    /** {@code count} planted probes against the first {@code storedCount}, distances cycling 0..5. */
    void probes(Path file, long storedCount, long count) throws IOException {
        try (BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            for (long n = 0; n < count; n++) {
                Fingerprints.Planted p = Fingerprints.planted(seed, storedCount, n, random);
                w.write("{\"id\":\"p" + n + "\",\"fingerprint\":\"" + Fingerprints.hex(p.fingerprint())
                        + "\",\"source\":\"" + Fingerprints.storedId(p.sourceIndex()) + "\",\"distance\":" + p.distance() + "}\n");
            }
        }
    }

    /** {@code count} documents, alternately English and Chinese, each followed by a near-duplicate. */
    void texts(Path file, int count, int words, int edits) throws IOException {
        TextCorpus corpus = new TextCorpus(seed);
        try (BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            for (int i = 0; i < count; i++) {
                TextCorpus.Language language = i % 2 == 0 ? TextCorpus.Language.ENGLISH : TextCorpus.Language.CHINESE;
                String text = corpus.document(language, words);
                w.write(textLine("t" + i, text, null));
                w.write(textLine("t" + i + "-near", corpus.nearDuplicate(text, language, edits), "t" + i));
            }
        }
    }

    private static String textLine(String id, String text, String source) throws IOException {
        StringWriter s = new StringWriter();
        try (JsonWriter json = new JsonWriter(s)) {
            json.setHtmlSafe(false);
            json.beginObject().name("id").value(id).name("text").value(text);
            if (source != null) {
                json.name("source").value(source);
            }
            json.endObject();
        }
        return s + "\n";
    }
}
