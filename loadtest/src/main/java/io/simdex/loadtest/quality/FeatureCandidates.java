package io.simdex.loadtest.quality;

import io.simdex.core.text.HanTokens;
import io.simdex.core.text.IdfTable;
import io.simdex.core.text.TextFingerprinter;
import io.simdex.core.text.TextSettings;
import io.simdex.core.text.Tokenization;
import io.simdex.core.text.Weighting;

import java.util.ArrayList;
import java.util.List;

/**
 * The feature pipelines the evaluation compares at distance <= 3, each a simdex
 * {@link TextFingerprinter}: word tokens with Han runs as HanLP words or single characters,
 * stop words dropped or kept, TF or TF-IDF with the built-in idf table ({@link IdfTable#builtIn()},
 * keyed by Han characters), and character 3-grams.
 * {@link TextSettings#defaults()} is what collections created before {@link HanTokens} use,
 * {@link TextSettings#recommended()} what new ones get.
 */
final class FeatureCandidates {
    /** A pipeline and its name in the report. */
    record Candidate(String name, TextFingerprinter fingerprinter, boolean builtInIdf) {
    }

    private static final List<Candidate> ALL = build();

    private FeatureCandidates() {
    }

    static List<Candidate> all() {
        return ALL;
    }

    private static List<Candidate> build() {
        List<Candidate> out = new ArrayList<>();
        for (HanTokens han : HanTokens.values()) {
            for (boolean drop : new boolean[] {true, false}) {
                out.add(words(han, drop));
            }
        }
        for (boolean drop : new boolean[] {true, false}) {
            TextSettings s = new TextSettings(Tokenization.WORDS, Weighting.TF_IDF, 1, drop, HanTokens.CHARACTERS);
            out.add(new Candidate(describe(s) + ", built-in idf", TextFingerprinter.of(s, IdfTable.builtIn()), true));
        }
        for (boolean drop : new boolean[] {true, false}) {
            TextSettings s = new TextSettings(Tokenization.CHAR_NGRAMS, Weighting.TF, TextSettings.DEFAULT_NGRAM_SIZE, drop);
            out.add(new Candidate("char 3-grams, TF, stop words " + (drop ? "dropped" : "kept"), TextFingerprinter.of(s), false));
        }
        return List.copyOf(out);
    }

    private static Candidate words(HanTokens han, boolean dropStopWords) {
        TextSettings s = new TextSettings(Tokenization.WORDS, Weighting.TF, 1, dropStopWords, han);
        return new Candidate(describe(s), TextFingerprinter.of(s), false);
    }

    /** The index of the candidate with these settings (and the built-in idf table or none). */
    static int indexOf(TextSettings settings, boolean builtInIdf) {
        for (int c = 0; c < ALL.size(); c++) {
            if (ALL.get(c).fingerprinter().settings().equals(settings) && ALL.get(c).builtInIdf() == builtInIdf) {
                return c;
            }
        }
        throw new IllegalArgumentException("no candidate " + settings + (builtInIdf ? " with the built-in idf" : ""));
    }

    /** "words, Han characters, TF, stop words kept" and the like. */
    static String describe(TextSettings s) {
        String han = s.hanTokens() == HanTokens.CHARACTERS ? "Han characters" : "HanLP words";
        return "words, " + han + ", " + s.weighting().name().replace('_', '-') + ", stop words " + (s.dropStopWords() ? "dropped" : "kept");
    }
}
