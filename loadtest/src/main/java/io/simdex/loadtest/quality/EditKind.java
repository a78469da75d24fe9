package io.simdex.loadtest.quality;

/**
 * How a positive (a near-duplicate copy) is made from a document, and how many operations each
 * {@link Strength} applies. Long documents scale word edits and noise with their size; short
 * ones get fixed counts, since one edit in ten words is already a lot.
 */
enum EditKind {
    /** Replace words (English) or two-character spans (Chinese) by words from a fixed vocabulary. */
    SUBSTITUTE,
    /** Insert vocabulary words at random places. */
    INSERT,
    /** Delete words, or two-character spans. */
    DELETE,
    /** Swap two sentences (clauses, or halves, in a text of one sentence); the count is swaps. */
    REORDER,
    /** Case, punctuation and whitespace changes that leave the letters and digits alone. */
    NOISE,
    /** Append a site footer: the count is footer words (English) or characters (Chinese). */
    BOILERPLATE;

    /** Edit strength: light, medium, heavy. */
    enum Strength {
        LIGHT, MEDIUM, HEAVY
    }

    private static final double[] WORD_EDIT_RATE = {0.01, 0.03, 0.08};
    private static final int[] SHORT_WORD_EDITS = {1, 2, 3};
    private static final double[] NOISE_RATE = {0.02, 0.05, 0.10};
    private static final int[] SHORT_NOISE = {1, 2, 4};
    private static final int[] LONG_SWAPS = {1, 2, 4};
    private static final int[] SHORT_SWAPS = {1, 1, 2};
    private static final int[] LONG_FOOTER_WORDS = {10, 25, 50};
    private static final int[] SHORT_FOOTER_WORDS = {2, 4, 8};
    /** Characters of Chinese footer per English footer word. */
    private static final int HAN_PER_WORD = 2;

    /**
     * How many operations of this kind {@code strength} means for a text of {@code units}
     * (words, or Han characters); at least 1.
     */
    int count(Strength strength, boolean longText, Language language, int units) {
        int s = strength.ordinal();
        int wordUnits = language == Language.ENGLISH ? units : units / HAN_PER_WORD;
        int n = switch (this) {
            case SUBSTITUTE, INSERT, DELETE -> longText ? (int) Math.round(WORD_EDIT_RATE[s] * wordUnits) : SHORT_WORD_EDITS[s];
            case NOISE -> longText ? (int) Math.round(NOISE_RATE[s] * wordUnits) : SHORT_NOISE[s];
            case REORDER -> longText ? LONG_SWAPS[s] : SHORT_SWAPS[s];
            case BOILERPLATE -> (longText ? LONG_FOOTER_WORDS[s] : SHORT_FOOTER_WORDS[s])
                    * (language == Language.ENGLISH ? 1 : HAN_PER_WORD);
        };
        return Math.max(1, n);
    }
}
