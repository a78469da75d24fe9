package io.simdex.loadtest.quality;

import io.simdex.core.text.ShortTextFingerprint;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Chooses a mode's parameters on the tuning half: of the candidates with precision at least
 * {@value #MIN_PRECISION} on every corpus (language x length), the one with the highest mean F1
 * (then the highest worst F1); candidates short of that precision rank after them. One setting
 * serves every corpus, as one collection setting serves every text.
 */
final class Tuning {
    static final double MIN_PRECISION = 0.99;

    /** A candidate and its F1 per corpus on the tuning half. */
    record Scored(Mode mode, double[] f1, double[] precision) {
        double worst() {
            double w = 1;
            for (double f : f1) {
                w = Math.min(w, f);
            }
            return w;
        }

        boolean precise() {
            for (double p : precision) {
                if (p < MIN_PRECISION) {
                    return false;
                }
            }
            return true;
        }

        double mean() {
            double sum = 0;
            for (double f : f1) {
                sum += f;
            }
            return sum / f1.length;
        }
    }

    private Tuning() {
    }

    /** The candidates scored on the tuning half, best first. */
    static List<Scored> rank(List<PairScores> corpora, List<Mode> candidates) {
        List<Scored> out = new ArrayList<>(candidates.parallelStream().map(m -> {
            double[] f1 = new double[corpora.size()];
            double[] precision = new double[corpora.size()];
            for (int c = 0; c < corpora.size(); c++) {
                Evaluation e = Evaluation.of(corpora.get(c), m, Corpus.TUNE);
                f1[c] = e.f1();
                precision[c] = e.precision();
            }
            return new Scored(m, f1, precision);
        }).toList());
        out.sort(Comparator.comparing(Scored::precise).thenComparingDouble(Scored::mean).thenComparingDouble(Scored::worst).reversed());
        return out;
    }

    static List<Mode> sketchGrid() {
        List<Mode> out = new ArrayList<>();
        for (int shape = 0; shape < PairScores.SHAPES.size(); shape++) {
            for (int radius = 3; radius <= 7; radius++) {
                for (int t = 15; t <= 70; t += 5) {
                    out.add(Mode.sketch(shape, radius, t / 100.0, true));
                    out.add(Mode.sketch(shape, radius, t / 100.0, false));
                }
            }
        }
        return out;
    }

    /** A radius beyond any distance: the sketch alone decides. */
    static final int ANY_DISTANCE = Long.SIZE;

    /** Each sketch shape and threshold at any distance: the sketch alone, for the report's sweep (not deployable: no index finds its candidates). */
    static List<Mode> sketchAloneGrid() {
        List<Mode> out = new ArrayList<>();
        for (int shape = 0; shape < PairScores.SHAPES.size(); shape++) {
            for (int t = 15; t <= 70; t += 5) {
                out.add(Mode.sketch(shape, ANY_DISTANCE, t / 100.0, false));
            }
        }
        return out;
    }

    /**
     * Bins and bits of a stored sketch as the server compares it (its FingerprintSketch): two
     * unrelated texts' bins agree by chance with probability 2^-5.
     */
    private static final int SKETCH_BINS = 60;
    private static final int SKETCH_BITS = 5;
    /**
     * Unrelated fingerprints a MinHash probe takes as candidates from a table of 50M (core's
     * BlockTables.MAX_CANDIDATE_DISTANCE) if fingerprints were random: of those its 68 buckets
     * hold, about one in 9,000 neighbours' and one in 2,800 of its own bucket's are within 12
     * bits. Real English sentences are candidates of one another far more often (the report's
     * "Bucket crowding"), but those share shingles, so their sketches' agreement is not chance
     * agreement, and the threshold's precision on them is the one measured on the corpus.
     */
    static final double RANDOM_CANDIDATES_AT_50M = 6;
    /** Most false duplicates per probe a threshold may let through from those: one in a million documents. */
    static final double MAX_RANDOM_FALSE_POSITIVES = 1e-6;

    /**
     * What new collections do (MinHash probes to 12, SimHash probes at 5 and 0.4) with the sketch
     * threshold of MinHash candidates varied, from the least one whose chance agreements pass
     * {@link #MAX_RANDOM_FALSE_POSITIVES} or fewer of the random candidates of a 50M table: this
     * corpus is too small to see them, so lower thresholds would score higher here and fail
     * at scale.
     */
    static List<Mode> shortFingerprintGrid() {
        List<Mode> out = new ArrayList<>();
        for (int t = 5; t <= 60; t += 5) {
            if (RANDOM_CANDIDATES_AT_50M * chanceAgreement(t / 100.0) <= MAX_RANDOM_FALSE_POSITIVES) {
                out.add(Mode.byLength(ShortTextFingerprint.DEFAULT_MAX_LETTERS, 12, 5, 0.4, t / 100.0, ShortTextFingerprint.PROBE_BAND,
                        false, QualityMain.WIDE_RADIUS, QualityMain.WIDE_WORDS));
            }
        }
        return out;
    }

    /**
     * New collections' mode with SimHash probes of texts of up to some words taking candidates to 6
     * or 7 (sketch.wide_*): wider finds more at every length here, so the length new collections
     * use is bounded by what the extra sketch reads cost (dedup-cpu), not by this grid.
     */
    static List<Mode> wideGrid() {
        List<Mode> out = new ArrayList<>();
        for (int radius = 6; radius <= 7; radius++) {
            for (int words : new int[] {50, 100, 150, 200, 300, 100_000}) {
                out.add(Mode.byLength(ShortTextFingerprint.DEFAULT_MAX_LETTERS, 12, 5, 0.4, 0.2, ShortTextFingerprint.PROBE_BAND, false,
                        radius, words));
            }
        }
        return out;
    }

    /**
     * New collections' mode with texts near the boundary probing with both fingerprints within
     * other bands, their second probe reading the buckets of 3 to 6 or those of the first (68):
     * a wider band and more buckets find more here, so what new collections use is bounded by
     * the Dedup time of texts probed twice (dedup-cpu), not by this grid.
     */
    static List<Mode> secondProbeGrid() {
        List<Mode> out = new ArrayList<>();
        for (double band : new double[] {1.5, 2, 2.5}) {
            for (int buckets : new int[] {3, 4, 5, 6, Mode.AS_THE_FIRST}) {
                out.add(Mode.byLength(ShortTextFingerprint.DEFAULT_MAX_LETTERS, 12, 5, 0.4, 0.2, band, false, QualityMain.WIDE_RADIUS,
                        QualityMain.WIDE_WORDS, Integer.MAX_VALUE, 12, buckets));
            }
        }
        return out;
    }

    /** The probability that two unrelated texts' sketches estimate at least {@code minJaccard}: a binomial tail. */
    static double chanceAgreement(double minJaccard) {
        double p = 1.0 / (1 << SKETCH_BITS);
        int need = (int) Math.ceil(SKETCH_BINS * (minJaccard * (1 - p) + p) - 1e-9);
        double tail = 0;
        for (int m = need; m <= SKETCH_BINS; m++) {
            tail += binomial(SKETCH_BINS, m) * Math.pow(p, m) * Math.pow(1 - p, SKETCH_BINS - m);
        }
        return tail;
    }

    private static double binomial(int n, int k) {
        double c = 1;
        for (int i = 1; i <= k; i++) {
            c = c * (n - k + i) / i;
        }
        return c;
    }

    static List<Mode> featureGrid() {
        List<Mode> out = new ArrayList<>();
        for (int c = 0; c < FeatureCandidates.all().size(); c++) {
            out.add(Mode.features(c));
        }
        return out;
    }

    static List<Mode> lshGrid() {
        List<Mode> out = new ArrayList<>();
        for (int shingle = 0; shingle < PairScores.LSH_SHINGLES.length; shingle++) {
            for (int rows = 1; rows <= 8; rows++) {
                for (int bands : new int[] {4, 8, 16, 32, 64, 128}) {
                    if (bands * rows <= MinHashLsh.PERMUTATIONS) {
                        out.add(Mode.lsh(shingle, bands, rows));
                    }
                }
            }
        }
        return out;
    }

    static List<Mode> exactGrid() {
        List<Mode> out = new ArrayList<>();
        for (int t = 10; t <= 80; t += 5) {
            out.add(Mode.exactJaccard(t / 100.0));
        }
        return out;
    }
}
