package io.simdex.core.text;

import com.hankcs.hanlp.HanLP;
import com.hankcs.hanlp.seg.Segment;
import com.hankcs.hanlp.seg.common.Term;

import java.util.ArrayList;
import java.util.List;

/**
 * Cuts normalised text into word tokens: Han runs through HanLP's dictionary segmenter, every
 * other run of one {@link CharClass} as one token. Stop words are kept; dropping them is the
 * caller's choice.
 *
 * <h2>Design</h2>
 * The text is first split into maximal runs of one class (letters and digits, Han, hiragana,
 * katakana, Hangul); whitespace, punctuation and symbols end a run and vanish. Only Han runs go
 * to HanLP, so the segmenter never sees Latin, digits or punctuation and its own handling of
 * them cannot leak into fingerprints. Kana and Hangul runs stay whole: HanLP's Chinese
 * dictionary would return them whole anyway, and Korean already puts spaces between words.
 *
 * <p>The segmenter is HanLP's Viterbi segmenter over the mini core dictionary that ships in the
 * portable jar (no download; about 0.2 s to load, once per process). Person, place, organisation and
 * numeral recognition and part-of-speech tagging are off: near-duplicate detection needs
 * consistent cuts, not labels. The custom dictionary is off too, because it is a global that any
 * code in the process may extend, and fingerprints must not change when someone does. HanLP's
 * analysis calls are thread-safe as long as the segmenter's configuration is not changed, and
 * this class configures it once, in the constructor, and never hands it out. HanLP's own
 * character normalisation (which also maps traditional to simplified Chinese) is pinned off for
 * the same reason: it follows a global switch.
 *
 * <p>With {@link HanTokens#CHARACTERS} there is no segmenter: each Han character is a token, so
 * the tokens of a Han run do not depend on where the run starts or ends.
 */
final class Tokenizer {
    private final Segment segment; // null: one token per Han character

    /** Han runs cut into HanLP's dictionary words. */
    Tokenizer() {
        this(HanTokens.DICTIONARY_WORDS);
    }

    /** Han runs cut as {@code hanTokens} says; {@link HanTokens#CHARACTERS} never loads HanLP. */
    Tokenizer(HanTokens hanTokens) {
        segment = hanTokens == HanTokens.CHARACTERS ? null : HanLP.newSegment()
                .enablePartOfSpeechTagging(false)
                .enableNameRecognize(false)
                .enableTranslatedNameRecognize(false)
                .enableJapaneseNameRecognize(false)
                .enablePlaceRecognize(false)
                .enableOrganizationRecognize(false)
                .enableNumberQuantifierRecognize(false)
                .enableCustomDictionary(false)
                .enableNormalization(false)
                .enableOffset(false);
    }

    /** Normalises {@code text} and returns its tokens in text order. */
    List<String> tokenize(String text) {
        return tokenizeNormalized(Normalization.apply(text));
    }

    /** Tokens of text already passed through {@link Normalization#apply}, in text order. */
    List<String> tokenizeNormalized(String normalized) {
        List<String> tokens = new ArrayList<>(normalized.length() / 4 + 4);
        forEachRun(normalized, (from, to, charClass) -> {
            if (charClass == CharClass.HAN) {
                segmentHan(normalized.substring(from, to), tokens);
            } else {
                tokens.add(normalized.substring(from, to));
            }
            return true;
        });
        return tokens;
    }

    /** Whether every token is a span of the text as it is ({@link HanTokens#CHARACTERS}: no segmenter's words). */
    boolean cutsSpans() {
        return segment == null;
    }

    /**
     * Visits the tokens of {@link #tokenizeNormalized} as spans, without substrings; their count.
     * Only where {@link #cutsSpans}.
     */
    int forEachSpan(String normalized, FeatureExtractor.SpanVisitor visitor) {
        if (segment != null) {
            throw new IllegalStateException("a segmenter's words are not spans of the text");
        }
        int[] count = {0};
        forEachRun(normalized, (from, to, charClass) -> {
            if (charClass != CharClass.HAN) {
                visitor.visit(from, to);
                count[0]++;
                return true;
            }
            count[0] += forEachCharacter(normalized, from, to, visitor);
            return true;
        });
        return count[0];
    }

    /** Visits each code point of {@code text[from, to)} as a span; their count. */
    private static int forEachCharacter(String text, int from, int to, FeatureExtractor.SpanVisitor visitor) {
        int count = 0;
        for (int i = from; i < to; count++) {
            int end = i + Character.charCount(text.codePointAt(i));
            visitor.visit(i, end);
            i = end;
        }
        return count;
    }

    /**
     * Whether {@link #tokenizeNormalized} gives a token that {@code dropped} (null: none) does not
     * hold, stopping at the first: a short text fingerprinted by MinHash is only checked to have
     * one, and listing every token was 3% of a 20-word text's Dedup.
     */
    boolean anyToken(String normalized, StopWords dropped) {
        List<String> han = new ArrayList<>();
        return !forEachRun(normalized, (from, to, charClass) -> {
            if (charClass != CharClass.HAN) {
                return dropped != null && dropped.contains(normalized.substring(from, to));
            }
            if (dropped == null && segment == null) {
                return false; // a Han run cut into characters is at least one token
            }
            han.clear();
            segmentHan(normalized.substring(from, to), han);
            return dropped == null ? han.isEmpty() : han.stream().allMatch(dropped::contains);
        });
    }

    /** A run of one character class: true to go on to the next. */
    private interface RunVisitor {
        boolean visit(int from, int to, int charClass);
    }

    /**
     * Visits the runs of letters, digits or Han characters of {@code normalized} in text order
     * (skipping the rest) while {@code visitor} returns true; false if it stopped.
     */
    private static boolean forEachRun(String normalized, RunVisitor visitor) {
        int length = normalized.length();
        int i = 0;
        while (i < length) {
            int cp = normalized.codePointAt(i);
            int charClass = CharClass.of(cp);
            if (charClass == CharClass.OTHER || charClass == CharClass.MARK) {
                i += Character.charCount(cp);
                continue;
            }
            int end = CharClass.runEnd(normalized, i + Character.charCount(cp), charClass);
            if (!visitor.visit(i, end, charClass)) {
                return false;
            }
            i = end;
        }
        return true;
    }

    private void segmentHan(String run, List<String> tokens) {
        if (segment == null) {
            forEachCharacter(run, 0, run.length(), (from, to) -> tokens.add(run.substring(from, to)));
            return;
        }
        if (run.length() == 1) {
            tokens.add(run); // nothing to segment, and HanLP's per-call setup is the larger cost
            return;
        }
        for (Term term : segment.seg(run)) {
            tokens.add(term.word);
        }
    }
}
