package io.simdex.loadtest.gen;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;

/** {@code gen}: writes the JSONL data and the ghz call-data files. */
@Command(name = "gen", mixinStandardHelpOptions = true,
        description = {"Generate test data: JSONL and ghz call-data files.",
                "Random fingerprints, planted near-duplicates (distances 0..5) and texts as JSONL in --out,",
                "and ghz call-data files (JSON arrays of requests) in --out/ghz."})
public final class GenCommand implements Callable<Integer> {
    @Option(names = "--out", defaultValue = "loadtest/target/data", description = "Output directory (default: ${DEFAULT-VALUE}).")
    Path out;

    @Option(names = "--seed", defaultValue = "42", description = "Seed; `load` and `run` take the same (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--count", defaultValue = "1000000", description = "Stored fingerprints in stored.jsonl (default: ${DEFAULT-VALUE}).")
    long count;

    @Option(names = "--probes", defaultValue = "60000", description = "Planted probes in probes.jsonl (default: ${DEFAULT-VALUE}).")
    long probes;

    @Option(names = "--texts", defaultValue = "1000", description = "Documents in texts.jsonl, each with a near-duplicate (default: ${DEFAULT-VALUE}).")
    int texts;

    @Option(names = "--words", defaultValue = "200", description = "Words per text document (default: ${DEFAULT-VALUE}).")
    int words;

    @Option(names = "--edits", defaultValue = "3", description = "Words replaced in a near-duplicate text (default: ${DEFAULT-VALUE}).")
    int edits;

    @Option(names = "--ghz-requests", defaultValue = "1000", description = "Distinct single-probe requests in ghz/query-unary.json (default: ${DEFAULT-VALUE}).")
    int ghzRequests;

    @Option(names = "--ghz-batches", defaultValue = "20", description = "Requests in each batched ghz file (default: ${DEFAULT-VALUE}).")
    int ghzBatches;

    @Option(names = "--ghz-batch", defaultValue = "1000", description = "Probes or documents per batched ghz request (default: ${DEFAULT-VALUE}).")
    int ghzBatch;

    @Option(names = "--ghz-texts", defaultValue = "100", description = "Texts per request in ghz/dedup-texts.json (default: ${DEFAULT-VALUE}).")
    int ghzTexts;

    @Override
    public Integer call() throws IOException {
        if (count < 1 || probes < 0 || texts < 0 || ghzRequests < 1 || ghzBatches < 1 || ghzBatch < 1 || ghzBatch > 10_000
                || ghzTexts < 1 || ghzTexts > 10_000) {
            throw new IllegalArgumentException("need count >= 1, probes/texts >= 0, ghz counts >= 1 and --ghz-batch, --ghz-texts <= 10000");
        }
        Path ghz = out.resolve("ghz");
        Files.createDirectories(ghz);
        SplittableRandom random = new SplittableRandom(seed ^ 0x5eed);
        JsonlData jsonl = new JsonlData(seed, random);
        jsonl.stored(out.resolve("stored.jsonl"), count);
        jsonl.probes(out.resolve("probes.jsonl"), count, probes);
        jsonl.texts(out.resolve("texts.jsonl"), texts, words, edits);
        GhzData data = new GhzData(seed, count, random);
        data.queries(ghz.resolve("query-unary.json"), ghzRequests, 1);
        data.queries(ghz.resolve("query-batch.json"), ghzBatches, ghzBatch);
        data.dedups(ghz.resolve("dedup.json"), ghzBatches, ghzBatch);
        data.storedBatches(ghz.resolve("insert.json"), ghzBatches, ghzBatch);
        data.storedBatches(ghz.resolve("bulkload.json"), ghzBatches, ghzBatch);
        data.textDedups(ghz.resolve("dedup-texts.json"), ghzBatches, ghzTexts, words, edits);
        data.urlChecks(ghz.resolve("check-urls.json"), ghzBatches, ghzBatch);
        System.err.printf("gen: %d stored, %d probes, %d texts (+ near-duplicates) and ghz data in %s%n",
                count, probes, texts, out.toAbsolutePath());
        return 0;
    }
}
