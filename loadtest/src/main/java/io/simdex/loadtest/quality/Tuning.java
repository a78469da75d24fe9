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

    /** What new collections do, with the MinHash probes' radius and sketch threshold varied (SimHash probes as shipped: 6, 0.4). */
    static List<Mode> shortFingerprintGrid() {
        List<Mode> out = new ArrayList<>();
        for (int radius : new int[]{7, 10, 12, 16}) {
            for (int t = 20; t <= 60; t += 5) {
                out.add(Mode.byLength(ShortTextFingerprint.DEFAULT_MAX_LETTERS, radius, 6, 0.4, t / 100.0, ShortTextFingerprint.PROBE_BAND));
            }
        }
        return out;
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
