package io.simdex.loadtest.quality;

import io.simdex.core.text.ShortTextFingerprint;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * The near-duplicate quality evaluation: builds the labelled corpus from this machine's man
 * pages and Chinese fortunes, fingerprints it with the default settings and three
 * alternatives, and writes the Markdown report to standard output and to {@code --out}.
 * Run by {@code loadtest/quality/run-eval.sh}.
 */
@Command(name = "quality", mixinStandardHelpOptions = true,
        description = "Precision and recall of 'Hamming distance <= k' on a labelled near-duplicate corpus.")
public final class QualityMain implements Callable<Integer> {
    @Option(names = "--seed", defaultValue = "20240607", description = "Seed of every random choice (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--out", defaultValue = "loadtest/quality/RESULTS.md", description = "Report file (default: ${DEFAULT-VALUE}).")
    Path out;

    @Option(names = "--summary", description = "Also write the held-out precision, recall and F1 of new collections' mode, "
            + "--no-sketch, basic SimHash and MinHash LSH here, tab-separated (the benchmark report's text-modes figure).")
    Path summary;

    @Option(names = "--man", defaultValue = "/usr/share/man", description = "Man page root (default: ${DEFAULT-VALUE}).")
    Path man;

    @Option(names = "--fortunes", defaultValue = "/usr/share/games/fortunes", description = "Fortune files (default: ${DEFAULT-VALUE}).")
    Path fortunes;

    @Option(names = "--docs", defaultValue = "/usr/share/doc", description = "Package documentation (default: ${DEFAULT-VALUE}).")
    Path docs;

    @Option(names = "--long", defaultValue = "300", description = "Long documents per language (default: ${DEFAULT-VALUE}).")
    int longDocs;

    @Option(names = "--short", defaultValue = "600", description = "Short documents per language (default: ${DEFAULT-VALUE}).")
    int shortDocs;

    /** New collections' SimHash radius for texts of at most {@link #WIDE_WORDS} words (CollectionSettingsRules). */
    static final int WIDE_RADIUS = 7;
    static final int WIDE_WORDS = 150;

    /**
     * What a collection created with default settings does (CollectionSettingsRules): short texts
     * by their b-bit MinHash fingerprint within 12 bits (a block within one bit beyond 7), verified
     * at 0.2; longer texts by SimHash within 7 up to 150 words and 5 above, verified at 0.4;
     * texts near the boundary probe with both.
     */
    static Mode newCollections() {
        return Mode.byLength(ShortTextFingerprint.DEFAULT_MAX_LETTERS, 12, 5, 0.4, 0.2, ShortTextFingerprint.PROBE_BAND, false,
                WIDE_RADIUS, WIDE_WORDS);
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new QualityMain()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        long start = System.nanoTime();
        Sources sources = new Sources(man, fortunes, docs, seed);
        if (!sources.hasChinese()) {
            System.err.println("quality: Chinese sources missing: apt-get install -y manpages-zh fortunes-zh");
            return 1;
        }
        List<Corpus> corpora = List.of(
                Corpus.build(sources.englishLong(longDocs), Language.ENGLISH, true, seed),
                Corpus.build(sources.englishShort(shortDocs), Language.ENGLISH, false, seed),
                Corpus.build(sources.chineseLong(longDocs), Language.CHINESE, true, seed),
                Corpus.build(sources.chineseShort(shortDocs), Language.CHINESE, false, seed),
                Corpus.build(sources.englishBoundary(longDocs), Language.ENGLISH, true, "boundary", seed),
                Corpus.build(sources.chineseBoundary(longDocs), Language.CHINESE, true, "boundary", seed),
                // Last, and left out of every grid: a corpus nothing was tuned on.
                Corpus.build(sources.englishDocs(longDocs), Language.ENGLISH, true, "docs", seed));
        System.err.printf("quality: corpus built in %.1f s%n", (System.nanoTime() - start) / 1e9);
        List<PairScores> scores = corpora.stream().map(PairScores::new).toList();
        System.err.printf("quality: pairs scored at %.1f s%n", (System.nanoTime() - start) / 1e9);
        List<PairScores> tuned = scores.subList(0, scores.size() - 1);
        List<Tuning.Scored> features = Tuning.rank(tuned, Tuning.featureGrid());
        List<List<Tuning.Scored>> tunings = List.of(Tuning.rank(tuned, Tuning.sketchGrid()), Tuning.rank(tuned, Tuning.lshGrid()),
                Tuning.rank(tuned, Tuning.exactGrid()), Tuning.rank(tuned, Tuning.shortFingerprintGrid()),
                Tuning.rank(tuned, Tuning.wideGrid()), Tuning.rank(tuned, Tuning.secondProbeGrid()), Tuning.rank(tuned, Tuning.sketchAloneGrid()));
        System.err.printf("quality: tuned at %.1f s%n", (System.nanoTime() - start) / 1e9);
        // --sketch at narrower candidate radii too: fewer candidates, less Dedup CPU (dedup-cpu's on-k5, on-k6).
        List<Mode> modes = new ArrayList<>(List.of(Mode.basicSimHash(), Mode.simdexDefaultBefore(), Mode.simdexDefault(),
                Mode.builtInIdf(), Mode.simdexShortText(), Mode.shipped(),
                Mode.sketch(1, 6, 0.4, false), Mode.sketch(1, 5, 0.4, false), Mode.sketch(1, 4, 0.4, false),
                Mode.bitMinHash(7, 0.4), Mode.bitMinHash(6, 0.4),
                // New collections' mode (the short-fingerprint grid's best, added below) with one thing changed:
                // SimHash probes to 5 at every length (new collections before the wide radius) or over 150 words to 6, MinHash
                // candidates verified at 0.4, MinHash probes to 7 or 16, the band, partitioned blocks, the second (MinHash)
                // probe of a text over 300 letters to 7.
                Mode.byLength(300, 12, 5, 0.4, 0.2, ShortTextFingerprint.PROBE_BAND),
                // --sketch-distance 6: SimHash probes over 150 words to 6.
                Mode.byLength(300, 12, 6, 0.4, 0.2, ShortTextFingerprint.PROBE_BAND, false, WIDE_RADIUS, WIDE_WORDS),
                Mode.byLength(300, 12, 5, 0.4, 0.4, ShortTextFingerprint.PROBE_BAND, false, WIDE_RADIUS, WIDE_WORDS),
                Mode.byLength(300, 7, 5, 0.4, 0.2, ShortTextFingerprint.PROBE_BAND, false, WIDE_RADIUS, WIDE_WORDS),
                Mode.byLength(300, 16, 5, 0.4, 0.2, ShortTextFingerprint.PROBE_BAND, false, WIDE_RADIUS, WIDE_WORDS),
                Mode.byLength(300, 12, 5, 0.4, 0.2, 2.5, false, WIDE_RADIUS, WIDE_WORDS),
                Mode.byLength(300, 12, 5, 0.4, 0.2, 1, false, WIDE_RADIUS, WIDE_WORDS),
                Mode.byLength(300, 12, 5, 0.4, 0.2, ShortTextFingerprint.PROBE_BAND, true, WIDE_RADIUS, WIDE_WORDS),
                Mode.byLength(300, 12, 5, 0.4, 0.2, ShortTextFingerprint.PROBE_BAND, false, WIDE_RADIUS, WIDE_WORDS, 300, 7),
                // The second probe reading the buckets of the first (68), within 2 and within 1.5 (new collections before).
                Mode.byLength(300, 12, 5, 0.4, 0.2, ShortTextFingerprint.PROBE_BAND, false, WIDE_RADIUS, WIDE_WORDS, Integer.MAX_VALUE, 12,
                        Mode.AS_THE_FIRST),
                Mode.byLength(300, 12, 5, 0.4, 0.2, 1.5, false, WIDE_RADIUS, WIDE_WORDS, Integer.MAX_VALUE, 12, Mode.AS_THE_FIRST),
                // New collections' sketch thresholds with every pair a candidate: what their probes miss.
                Mode.verificationAlone(ShortTextFingerprint.DEFAULT_MAX_LETTERS, 0.4, 0.2)));
        tunings.subList(0, tunings.size() - 1).forEach(t -> modes.add(t.get(0).mode()));
        String command = "loadtest/quality/run-eval.sh --seed " + seed + " --long " + longDocs + " --short " + shortDocs;
        String report = Report.markdown(scores, modes, tunings, features, command, sources.describe());
        System.out.print(report);
        Files.createDirectories(out.toAbsolutePath().getParent());
        Files.writeString(out, report, StandardCharsets.UTF_8);
        if (summary != null) {
            // New collections' mode by its settings, not as the tuning chose it (the report's last row of each class).
            Map<String, Mode> keyed = new LinkedHashMap<>();
            keyed.put("new-collections", newCollections());
            keyed.put("no-sketch", Mode.simdexDefault());
            keyed.put("basic-simhash", Mode.basicSimHash());
            keyed.put("minhash-lsh", tunings.get(1).get(0).mode());
            if (summary.toAbsolutePath().getParent() != null) {
                Files.createDirectories(summary.toAbsolutePath().getParent());
            }
            Files.writeString(summary, Report.summary(scores, keyed), StandardCharsets.UTF_8);
        }
        return 0;
    }
}
