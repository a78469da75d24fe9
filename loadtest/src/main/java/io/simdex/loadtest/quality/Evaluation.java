package io.simdex.loadtest.quality;

/**
 * One mode scored on one half of a corpus: the confusion counts, recall per edit kind and
 * strength, and the mean exact Jaccard of the positives of each kind (how hard the kind is,
 * whatever the mode).
 */
final class Evaluation {
    final Corpus corpus;
    final Mode mode;
    final int half;
    long truePositives;
    long falseNegatives;
    long falsePositivesHard;
    long falsePositivesRandom;
    long hardNegatives;
    long randomNegatives;
    final long[][] hits = new long[EditKind.values().length][EditKind.Strength.values().length];
    final long[][] totals = new long[EditKind.values().length][EditKind.Strength.values().length];
    final double[] exactSum = new double[EditKind.values().length];

    private Evaluation(Corpus corpus, Mode mode, int half) {
        this.corpus = corpus;
        this.mode = mode;
        this.half = half;
    }

    /** Scores {@code mode} on the pairs of {@code half} ({@link Corpus#half}). */
    static Evaluation of(PairScores s, Mode mode, int half) {
        Evaluation e = new Evaluation(s.corpus, mode, half);
        for (int p = 0; p < s.corpus.pairs.size(); p++) {
            Corpus.Pair pair = s.corpus.pairs.get(p);
            if (s.corpus.half(pair) == half) {
                e.count(pair, mode.rule().duplicate(s, p), s.exact[p]);
            }
        }
        return e;
    }

    private void count(Corpus.Pair p, boolean predicted, double exact) {
        if (p.positive()) {
            truePositives += predicted ? 1 : 0;
            falseNegatives += predicted ? 0 : 1;
            hits[p.kind().ordinal()][p.strength().ordinal()] += predicted ? 1 : 0;
            totals[p.kind().ordinal()][p.strength().ordinal()]++;
            exactSum[p.kind().ordinal()] += exact;
        } else if (p.hard()) {
            hardNegatives++;
            falsePositivesHard += predicted ? 1 : 0;
        } else {
            randomNegatives++;
            falsePositivesRandom += predicted ? 1 : 0;
        }
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

    /** Recall on the positives of one kind, all strengths. */
    double recall(EditKind kind) {
        long hit = 0;
        long total = 0;
        for (EditKind.Strength s : EditKind.Strength.values()) {
            hit += hits[kind.ordinal()][s.ordinal()];
            total += totals[kind.ordinal()][s.ordinal()];
        }
        return total == 0 ? 0 : hit / (double) total;
    }

    /** F1 on the positives of one kind against all the half's negatives. */
    double f1(EditKind kind) {
        long total = 0;
        for (EditKind.Strength s : EditKind.Strength.values()) {
            total += totals[kind.ordinal()][s.ordinal()];
        }
        double tp = recall(kind) * total;
        double p = tp + falsePositives() == 0 ? 1 : tp / (tp + falsePositives());
        double r = recall(kind);
        return p + r == 0 ? 0 : 2 * p * r / (p + r);
    }

    double meanExact(EditKind kind) {
        long total = 0;
        for (EditKind.Strength s : EditKind.Strength.values()) {
            total += totals[kind.ordinal()][s.ordinal()];
        }
        return total == 0 ? 0 : exactSum[kind.ordinal()] / total;
    }
}
