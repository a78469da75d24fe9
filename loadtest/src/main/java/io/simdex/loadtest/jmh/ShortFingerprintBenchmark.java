package io.simdex.loadtest.jmh;

import io.simdex.core.text.BitMinHash;
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
 * The short-text fingerprint ({@link BitMinHash}, 64 one-bit MinHash values) of normalised
 * texts of 20 and 60 words, whole-text and partitioned, its bins ordered by 64- and 32-bit
 * products: microseconds per text. Short texts are cheap to fingerprint by SimHash, so this is a
 * visible share of their Dedup (dedup-cpu).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class ShortFingerprintBenchmark {
    private static final int DOCUMENTS = 64;

    @Param({"ENGLISH", "CHINESE"})
    TextCorpus.Language language;

    @Param({"20", "60"})
    int words;

    @Param({"PRODUCTS_64", "PRODUCTS_32"})
    BitMinHash.BinOrder order;

    private String[] texts;
    private int next;

    @Setup
    public void setUp() {
        TextCorpus corpus = new TextCorpus(42);
        texts = new String[DOCUMENTS];
        for (int i = 0; i < DOCUMENTS; i++) {
            texts[i] = ContentHash.normalise(corpus.document(language, words));
        }
    }

    @Benchmark
    public long whole() {
        return BitMinHash.of(texts[next++ & (DOCUMENTS - 1)], order);
    }

    @Benchmark
    public long partitioned() {
        return BitMinHash.partitioned(texts[next++ & (DOCUMENTS - 1)], order);
    }
}
