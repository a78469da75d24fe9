package io.simdex.core.text;

/**
 * How a collection sketches its texts: which characters count, the n-gram size, and the
 * {@link MinHashSketch}'s bins and bits.
 *
 * <p>The sketch is cut from the letters and digits of the normalised text only (NFKC has
 * already folded full-width forms and case): punctuation, whitespace and markup changes then
 * leave a sketch unchanged, and the n-grams run across word boundaries, which keeps a one-word
 * change in a short text from removing more n-grams than it touches.
 *
 * @param ngram characters per n-gram, 1..{@value MinHashSketch#MAX_NGRAM}
 * @param bins  bins of the sketch: its stored size in bytes
 * @param bits  bits kept per bin, 1..{@value MinHashSketch#MAX_BITS}
 */
public record Sketcher(int ngram, int bins, int bits) {
    /** 3-grams, 60 bins of 6 bits: 60 bytes stored (the evaluation in loadtest/quality chose them). */
    public static final Sketcher DEFAULT = new Sketcher(3, 60, 6);

    /** @throws IllegalArgumentException if a parameter is outside its range */
    public Sketcher {
        MinHashSketch.of("", ngram, bins, bits);
    }

    /** The sketch of a normalised text's letters and digits (the text itself if it has none). */
    public MinHashSketch sketch(String normalised) {
        // Texts of n letters and digits or more (nearly all) without a copy: Dedup sketches every text.
        MinHashSketch rolled = ngram <= Long.SIZE / Character.SIZE ? MinHashSketch.ofLettersAndDigits(normalised, ngram, bins, bits) : null;
        return rolled != null ? rolled : MinHashSketch.of(lettersAndDigits(normalised), ngram, bins, bits);
    }

    /** The letters and digits of {@code text}, in order; {@code text} itself if it has none. */
    public static CharSequence lettersAndDigits(String text) {
        StringBuilder b = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (CharClass.isLetterOrDigit(c)) {
                b.append(c);
            }
        }
        return b.length() == 0 ? text : b;
    }
}
