package io.simdex.core.text;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

/**
 * A rough, single-threaded measure of fingerprinting speed in MB/s of UTF-8 input, for a feel
 * of the cost on this machine; not a benchmark (no forks, no JMH), and nothing asserts on it.
 *
 * <p>From Maven: {@code mvn -q -o -pl core test -Dtest=FingerprintThroughputTest
 * -Dsimdex.throughput=true}. From jshell, after {@code mvn -o -pl core test-compile}:
 * <pre>
 *   jshell --class-path core/target/classes:core/target/test-classes:HANLP_JAR:ZAH_JAR
 *   jshell&gt; System.out.println(io.simdex.core.text.FingerprintThroughput.report())
 * </pre>
 */
public final class FingerprintThroughput {
    private static final Duration WARM_UP = Duration.ofSeconds(3);
    private static final Duration MEASURE = Duration.ofSeconds(5);

    private FingerprintThroughput() {
    }

    /**
     * English and Chinese article throughput for the pipelines a collection can have: words as a
     * new collection cuts them (each Han character a token, stop words kept), words as
     * collections created before that (HanLP words, stop words dropped), and character trigrams
     * with stop words kept (a new collection's char_ngrams).
     */
    public static String report() {
        TextFingerprinter words = TextFingerprinter.of(TextSettings.recommended());
        TextFingerprinter hanlpWords = TextFingerprinter.defaults();
        TextFingerprinter trigrams = TextFingerprinter.of(new TextSettings(Tokenization.CHAR_NGRAMS, Weighting.TF,
                TextSettings.DEFAULT_NGRAM_SIZE, false, HanTokens.CHARACTERS));
        List<String> english = List.of(TestTexts.RIVER_EN, TestTexts.BAKERY_EN);
        List<String> chinese = List.of(TestTexts.METRO_ZH, TestTexts.TEA_ZH);
        return line("words", words, english, chinese) + System.lineSeparator()
                + line("hanlp-words", hanlpWords, english, chinese) + System.lineSeparator()
                + line("trigrams", trigrams, english, chinese);
    }

    private static String line(String name, TextFingerprinter f, List<String> english, List<String> chinese) {
        return String.format("%-12s English %.1f MB/s, Chinese %.1f MB/s", name + ":",
                megabytesPerSecond(f, english), megabytesPerSecond(f, chinese));
    }

    /** Fingerprints the texts round after round; MB/s (10^6 bytes of UTF-8) after a warm-up. */
    public static double megabytesPerSecond(TextFingerprinter fingerprinter, List<String> texts) {
        long bytesPerRound = 0;
        for (String text : texts) {
            bytesPerRound += text.getBytes(StandardCharsets.UTF_8).length;
        }
        runFor(fingerprinter, texts, WARM_UP);
        long start = System.nanoTime();
        long rounds = runFor(fingerprinter, texts, MEASURE);
        double seconds = (System.nanoTime() - start) / 1e9;
        return rounds * bytesPerRound / 1e6 / seconds;
    }

    private static long runFor(TextFingerprinter fingerprinter, List<String> texts, Duration duration) {
        long deadline = System.nanoTime() + duration.toNanos();
        long rounds = 0;
        long sink = 0;
        while (System.nanoTime() < deadline) {
            for (String text : texts) {
                sink ^= fingerprinter.fingerprint(text);
            }
            rounds++;
        }
        if (sink == 42) {
            System.out.print(""); // keeps the results alive, so the JIT cannot drop the work
        }
        return rounds;
    }
}
