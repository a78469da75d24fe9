package io.simdex.loadtest.quality;

import io.simdex.core.text.TextFingerprinter;
import io.simdex.core.text.TextSettings;
import io.simdex.core.text.Tokenization;
import io.simdex.core.text.Weighting;
import io.simdex.router.index.ShortTextRule;
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

    @Option(names = "--man", defaultValue = "/usr/share/man", description = "Man page root (default: ${DEFAULT-VALUE}).")
    Path man;

    @Option(names = "--fortunes", defaultValue = "/usr/share/games/fortunes", description = "Fortune files (default: ${DEFAULT-VALUE}).")
    Path fortunes;

    @Option(names = "--long", defaultValue = "300", description = "Long documents per language (default: ${DEFAULT-VALUE}).")
    int longDocs;

    @Option(names = "--short", defaultValue = "600", description = "Short documents per language (default: ${DEFAULT-VALUE}).")
    int shortDocs;

    @Option(names = "-k", defaultValue = "3", description = "Largest distance counted as a duplicate (default: ${DEFAULT-VALUE}).")
    int k;

    public static void main(String[] args) {
        System.exit(new CommandLine(new QualityMain()).execute(args));
    }

    /** The settings compared: the default first. */
    static Map<String, TextSettings> settings() {
        Map<String, TextSettings> s = new LinkedHashMap<>();
        s.put("words (default)", TextSettings.defaults());
        s.put("words + stop words", new TextSettings(Tokenization.WORDS, Weighting.TF, 1, false));
        s.put("char 3-grams", TextSettings.charNgrams());
        s.put("char 3-grams + stop words", new TextSettings(Tokenization.CHAR_NGRAMS, Weighting.TF, TextSettings.DEFAULT_NGRAM_SIZE, false));
        return s;
    }

    @Override
    public Integer call() throws Exception {
        long start = System.nanoTime();
        Sources sources = new Sources(man, fortunes, seed);
        if (!sources.hasChinese()) {
            System.err.println("quality: Chinese sources missing: apt-get install -y manpages-zh fortunes-zh");
            return 1;
        }
        List<Corpus> corpora = List.of(
                Corpus.build(sources.englishLong(longDocs), Language.ENGLISH, true, seed),
                Corpus.build(sources.englishShort(shortDocs), Language.ENGLISH, false, seed),
                Corpus.build(sources.chineseLong(longDocs), Language.CHINESE, true, seed),
                Corpus.build(sources.chineseShort(shortDocs), Language.CHINESE, false, seed));
        System.err.printf("quality: corpus built in %.1f s%n", (System.nanoTime() - start) / 1e9);
        List<Evaluation> rows = new ArrayList<>();
        for (Corpus c : corpora) {
            for (Map.Entry<String, TextSettings> s : settings().entrySet()) {
                rows.add(Evaluation.run(c, s.getKey(), TextFingerprinter.of(s.getValue()), k));
                System.err.printf("quality: %s %s %s done at %.1f s%n", c.language.code(), c.longText ? "long" : "short",
                        s.getKey(), (System.nanoTime() - start) / 1e9);
            }
            // The server's short-text verification with its defaults (collections with short_text on).
            rows.add(Evaluation.run(c, "words + short-text verification", TextFingerprinter.defaults(), k,
                    new ShortTextRule(200, 7, 0.6, 3)));
        }
        String report = Report.markdown(rows, sources.describe(), seed, k);
        System.out.print(report);
        Files.createDirectories(out.toAbsolutePath().getParent());
        Files.writeString(out, report, StandardCharsets.UTF_8);
        return 0;
    }
}
