package io.simdex.loadtest.quality;

import io.simdex.core.text.TextFingerprinter;
import io.simdex.fingerprint.crawl.ContentHash;
import io.simdex.router.index.ShortTextRule;

import java.util.stream.IntStream;

/**
 * Fingerprints a corpus with one setting and scores "Hamming distance <= k" as a duplicate
 * detector: the confusion counts, recall per edit kind and strength, and distance histograms.
 * A text the fingerprinter rejects (no terms) makes its pairs predicted non-duplicates.
 */
final class Evaluation {
    /** Histogram bins: 0, 1, 2, 3, 4, 5, 6-8, 9-12, 13-20, 21+. */
    static final int[] BIN_UPPER = {0, 1, 2, 3, 4, 5, 8, 12, 20, 64};
    static final String[] BIN_LABELS = {"0", "1", "2", "3", "4", "5", "6-8", "9-12", "13-20", "21+"};

    final Corpus corpus;
    final String setting;
    final int k;
    long truePositives;
    long falseNegatives;
    long falsePositivesHard;
    long falsePositivesRandom;
    long hardNegatives;
    long randomNegatives;
    int unfingerprintable;
    final long[][] hits = new long[EditKind.values().length][EditKind.Strength.values().length];
    final long[][] totals = new long[EditKind.values().length][EditKind.Strength.values().length];
    final long[] positiveHistogram = new long[BIN_UPPER.length];
    final long[] negativeHistogram = new long[BIN_UPPER.length];

    private Evaluation(Corpus corpus, String setting, int k) {
        this.corpus = corpus;
        this.setting = setting;
        this.k = k;
    }

    static Evaluation run(Corpus corpus, String setting, TextFingerprinter fingerprinter, int k) {
        return run(corpus, setting, fingerprinter, k, null);
    }

    /**
     * As {@link #run(Corpus, String, TextFingerprinter, int)}, predicting as a collection with
     * short-text verification does: a pair of short texts is a duplicate when within the rule's
     * candidate distance and its shingle Jaccard reaches the rule's threshold (the server's
     * predicate, {@link ShortTextRule}, on the same normal form).
     */
    static Evaluation run(Corpus corpus, String setting, TextFingerprinter fingerprinter, int k, ShortTextRule shortText) {
        Evaluation e = new Evaluation(corpus, setting, k);
        String[] normal = shortText == null ? null
                : corpus.texts.parallelStream().map(ContentHash::normalise).toArray(String[]::new);
        boolean[] failed = new boolean[corpus.texts.size()];
        long[] fps = IntStream.range(0, corpus.texts.size()).parallel().mapToLong(i -> {
            try {
                return fingerprinter.fingerprint(corpus.texts.get(i));
            } catch (IllegalArgumentException noTerms) {
                failed[i] = true;
                return 0;
            }
        }).toArray();
        for (boolean f : failed) {
            e.unfingerprintable += f ? 1 : 0;
        }
        for (Corpus.Pair p : corpus.pairs) {
            boolean missing = failed[p.a()] || failed[p.b()];
            int d = missing ? Long.SIZE + 1 : Long.bitCount(fps[p.a()] ^ fps[p.b()]);
            boolean predicted;
            if (shortText != null && shortText.applies(normal[p.a()]) && shortText.applies(normal[p.b()])) {
                predicted = !missing && d <= shortText.candidateDistance()
                        && shortText.similarity(normal[p.a()], normal[p.b()]) >= shortText.minJaccard();
            } else {
                predicted = !missing && d <= k;
            }
            e.count(p, d, predicted);
        }
        return e;
    }

    private void count(Corpus.Pair p, int distance, boolean predicted) {
        if (p.positive()) {
            truePositives += predicted ? 1 : 0;
            falseNegatives += predicted ? 0 : 1;
            hits[p.kind().ordinal()][p.strength().ordinal()] += predicted ? 1 : 0;
            totals[p.kind().ordinal()][p.strength().ordinal()]++;
            addTo(positiveHistogram, distance);
        } else {
            if (p.hard()) {
                hardNegatives++;
                falsePositivesHard += predicted ? 1 : 0;
            } else {
                randomNegatives++;
                falsePositivesRandom += predicted ? 1 : 0;
            }
            addTo(negativeHistogram, distance);
        }
    }

    private static void addTo(long[] histogram, int distance) {
        if (distance > Long.SIZE) {
            return;
        }
        int bin = 0;
        while (distance > BIN_UPPER[bin]) {
            bin++;
        }
        histogram[bin]++;
    }

    long positives() {
        return truePositives + falseNegatives;
    }

    long negatives() {
        return hardNegatives + randomNegatives;
    }

    long falsePositives() {
        return falsePositivesHard + falsePositivesRandom;
    }

    double precision() {
        long predicted = truePositives + falsePositives();
        return predicted == 0 ? 1.0 : truePositives / (double) predicted;
    }

    double recall() {
        return positives() == 0 ? 0 : truePositives / (double) positives();
    }

    double f1() {
        double p = precision();
        double r = recall();
        return p + r == 0 ? 0 : 2 * p * r / (p + r);
    }
}
