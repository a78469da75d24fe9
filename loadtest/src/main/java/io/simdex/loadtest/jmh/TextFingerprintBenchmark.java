package io.simdex.loadtest.jmh;

import io.simdex.core.text.TextFingerprinter;
import io.simdex.fingerprint.crawl.ContentHash;
import io.simdex.loadtest.gen.TextCorpus;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * SimHash of a document with the default settings (words, HanLP for Chinese, stop words dropped,
 * TF): documents per second; characters per second is that times the mean length the setup prints.
 * {@code normalise}: the normal form a router takes of every text it is given
 * ({@link ContentHash#normalise}), documents per second.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class TextFingerprintBenchmark {
    private static final int DOCUMENTS = 64;

    @Param({"ENGLISH", "CHINESE"})
    TextCorpus.Language language;

    @Param({"200"})
    int words;

    private String[] texts;
    private TextFingerprinter fingerprinter;
    private int next;

    @Setup
    public void setUp() {
        TextCorpus corpus = new TextCorpus(42);
        texts = new String[DOCUMENTS];
        long chars = 0;
        for (int i = 0; i < DOCUMENTS; i++) {
            texts[i] = corpus.document(language, words);
            chars += texts[i].length();
        }
        fingerprinter = TextFingerprinter.defaults();
        fingerprinter.fingerprint(texts[0]); // loads HanLP's dictionaries outside the measurement
        System.out.printf("%n%s, %d words: mean %d chars per document%n", language, words, chars / DOCUMENTS);
    }

    @Benchmark
    public long fingerprint() {
        return fingerprinter.fingerprint(texts[next++ & (DOCUMENTS - 1)]);
    }

    @Benchmark
    public String normalise() {
        return ContentHash.normalise(texts[next++ & (DOCUMENTS - 1)]);
    }
}
