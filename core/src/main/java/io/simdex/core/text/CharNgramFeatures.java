package io.simdex.core.text;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Character n-gram features: every n consecutive code points of the text's letters, digits and
 * CJK characters, with one space standing for each gap. A text with fewer than n such code
 * points yields one feature of all of them.
 *
 * <h2>Design</h2>
 * No dictionary and no segmenter: this mode works the same for any script and is cheaper than
 * {@link Tokenization#WORDS}. The kept text is built first: a run of whitespace, punctuation or
 * symbols becomes one space, so "river, bank" and "river bank" agree while "riverbank" differs.
 * With stop words dropped, a Latin stop word goes as a whole word (its gap merges with the next),
 * and a CJK stop character (的, 了, 是) goes character by character, since there is no
 * segmentation to tell 目的 from 的; the same rule applies to every document, which is all
 * SimHash needs. Grams are cut by code point, so surrogate pairs are never split.
 */
final class CharNgramFeatures implements FeatureExtractor {
    private static final int GAP = ' ';

    private final StopWords stopWords; // null: keep stop words
    private final int n;

    CharNgramFeatures(StopWords stopWords, int n) {
        this.stopWords = stopWords;
        this.n = n;
    }

    @Override
    public List<String> features(String normalized) {
        int[] kept = keptCodePoints(normalized);
        if (kept.length == 0) {
            return new ArrayList<>(0);
        }
        int count = Math.max(1, kept.length - n + 1);
        int width = Math.min(n, kept.length);
        List<String> grams = new ArrayList<>(count);
        for (int start = 0; start < count; start++) {
            grams.add(new String(kept, start, width));
        }
        return grams;
    }

    /** The letters, digits and CJK characters of the text, one space per gap, stop words out. */
    int[] keptCodePoints(String normalized) {
        int[] out = new int[normalized.length()];
        int size = 0;
        boolean gap = false;
        int i = 0;
        while (i < normalized.length()) {
            int cp = normalized.codePointAt(i);
            int charClass = CharClass.of(cp);
            if (charClass == CharClass.WORD) {
                int end = CharClass.runEnd(normalized, i, CharClass.WORD);
                if (stopWords != null && stopWords.contains(normalized.substring(i, end))) {
                    gap = true;
                } else {
                    size = appendGap(out, size, gap);
                    size = appendCodePoints(normalized, i, end, out, size);
                    gap = false;
                }
                i = end;
                continue;
            }
            if (CharClass.isCjk(charClass)) {
                if (stopWords == null || !stopWords.isCjkStopChar(cp)) {
                    size = appendGap(out, size, gap);
                    out[size++] = cp;
                    gap = false;
                }
            } else {
                gap = true;
            }
            i += Character.charCount(cp);
        }
        return Arrays.copyOf(out, size);
    }

    private static int appendGap(int[] out, int size, boolean gap) {
        if (gap && size > 0) {
            out[size++] = GAP;
        }
        return size;
    }

    private static int appendCodePoints(String s, int from, int to, int[] out, int size) {
        int i = from;
        while (i < to) {
            int cp = s.codePointAt(i);
            out[size++] = cp;
            i += Character.charCount(cp);
        }
        return size;
    }
}
