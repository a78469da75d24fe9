package io.simdex.core.text;

/**
 * How many words a normalised text has, as the default features count them: each run of
 * letters and digits outside the CJK scripts is a word, and each CJK character is one (the
 * default tokenization gives Han characters a feature each). A SimHash of fewer words moves
 * further for the same share of them edited, which is what collections widen a probe's
 * radius by. One pass over the text, no tokenizer: cheap enough for every text probe.
 */
public final class WordCount {
    private WordCount() {
    }

    /** The words of a normalised text (NFKC, lower case: see {@code ContentHash.normalise}). */
    public static int of(String normalised) {
        return of(normalised, Integer.MAX_VALUE - 1);
    }

    /**
     * The words of a normalised text, counted up to {@code max + 1}: whether a text has more
     * than {@code max} words is decided without reading past its first {@code max + 1}.
     */
    public static int of(String normalised, int max) {
        int words = 0;
        boolean inWord = false;
        for (int i = 0; i < normalised.length() && words <= max; ) {
            int cp = normalised.codePointAt(i);
            i += Character.charCount(cp);
            int c = CharClass.of(cp);
            if (CharClass.isCjk(c)) {
                words++;
                inWord = false;
            } else if (c == CharClass.WORD || c == CharClass.MARK && inWord) {
                words += inWord ? 0 : 1;
                inWord = true;
            } else {
                inWord = false;
            }
        }
        return words;
    }
}
