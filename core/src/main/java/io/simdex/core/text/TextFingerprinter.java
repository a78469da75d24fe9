package io.simdex.core.text;

import net.openhft.hashing.LongHashFunction;

import java.util.List;

/**
 * Computes the 64-bit SimHash fingerprint of a text, so that near-duplicate texts get
 * fingerprints a few bits apart and unrelated texts about 32 bits apart. Immutable and
 * thread-safe: build one per {@link TextSettings} and share it.
 *
 * <h2>Pipeline</h2>
 * <ol>
 *   <li>Normalise: Unicode NFKC (full-width to half-width), lower case.</li>
 *   <li>Cut features ({@link Tokenization}): words, with Chinese segmented by HanLP or cut
 *       into single characters ({@link HanTokens}), or character n-grams; stop words dropped if
 *       the settings say so.</li>
 *   <li>Hash each feature with 64-bit XXH3 over its UTF-16 chars. Never
 *       {@code String.hashCode}: 32 bits cannot fill 64 and fingerprints are persisted.</li>
 *   <li>Weight: 1 per occurrence, which sums to tf, times the feature's idf under
 *       {@link Weighting#TF_IDF}.</li>
 *   <li>{@link SimHash}: per bit, add the weight where the hash has a 1, subtract it where a
 *       0; bit i is 1 iff the sum is positive.</li>
 * </ol>
 * With TF-IDF and no {@link IdfTable}, every idf is the built-in default 1.0, so the result is
 * the TF fingerprint. A text whose features all have idf 0 has fingerprint 0.
 *
 * <h2>What to expect</h2>
 * "A few bits" is a probability, not a bound: every edited feature moves each bit's sum by its
 * weight, and the bits whose sums sat near zero flip. With the default settings, on news
 * articles of about 300 English words or 300-750 Han characters, 1 to 3 random word edits
 * stayed within distance 3 in about 96% (English) and 87% (Chinese) of trials, and unrelated
 * articles landed 25 to 38 apart ({@code NearDuplicateRateTest}, {@code NearDuplicateTest}). Longer texts are steadier:
 * their sums are larger, so the same edit flips fewer bits.
 *
 * <h2>Cost</h2>
 * The first WORDS instance in a process costs about 0.2 s: HanLP loads its dictionaries, part
 * when the instance is built and the core dictionary with the first Chinese text. After that the work is
 * linear in the text, and for Chinese mostly HanLP's segmentation; {@code FingerprintThroughput}
 * in the tests measures MB/s.
 */
public final class TextFingerprinter {
    private static final LongHashFunction TERM_HASH = LongHashFunction.xx3();
    /** How much of a rejected text an error message quotes. */
    private static final int QUOTE_LIMIT = 60;

    private final TextSettings settings;
    private final IdfTable idfTable;
    private final FeatureExtractor features;

    private TextFingerprinter(TextSettings settings, IdfTable idfTable) {
        this.settings = settings;
        this.idfTable = idfTable;
        this.features = FeatureExtractor.of(settings);
    }

    /** Words (HanLP for Chinese), stop words dropped, TF weighting; one shared instance. */
    public static TextFingerprinter defaults() {
        return DefaultHolder.INSTANCE;
    }

    /**
     * A fingerprinter for {@code settings}; under {@link Weighting#TF_IDF} every idf is 1.0.
     *
     * @throws IllegalArgumentException if settings is null
     */
    public static TextFingerprinter of(TextSettings settings) {
        if (settings == null) {
            throw new IllegalArgumentException("settings is null");
        }
        return new TextFingerprinter(settings, IdfTable.uniform());
    }

    /**
     * A TF-IDF fingerprinter that takes idf values from {@code idfTable}.
     *
     * @throws IllegalArgumentException if an argument is null or the settings' weighting is not TF_IDF
     */
    public static TextFingerprinter of(TextSettings settings, IdfTable idfTable) {
        if (settings == null || idfTable == null) {
            throw new IllegalArgumentException(
                    "settings and idfTable must be set, got " + settings + ", " + idfTable);
        }
        if (settings.weighting() != Weighting.TF_IDF) {
            throw new IllegalArgumentException(
                    "an IdfTable needs Weighting.TF_IDF, settings have " + settings.weighting());
        }
        return new TextFingerprinter(settings, idfTable);
    }

    /**
     * The 64-bit SimHash of {@code text}.
     *
     * @throws IllegalArgumentException if the text is null, has no word at all (blank, only
     *                                  punctuation or symbols), or has no token after stop-word
     *                                  removal; the message says which and quotes the text
     */
    public long fingerprint(String text) {
        String normalized = normalized(text);
        boolean weighted = settings.weighting() == Weighting.TF_IDF;
        SimHash simHash = new SimHash();
        if (!weighted) {
            // New collections' words are spans of the text: hashed in place, with no string per
            // token (the list of substrings was most of the tokenizer's time).
            int spans = features.forEachSpan(normalized, (from, to) -> simHash.add(TERM_HASH.hashChars(normalized, from, to - from), 1.0));
            if (spans == 0) {
                throw noTermsSlowPath(text);
            }
            if (spans > 0) {
                return simHash.value();
            }
        }
        List<String> terms = features.features(normalized);
        if (terms.isEmpty()) {
            throw noTermsSlowPath(text);
        }
        for (String term : terms) {
            simHash.add(TERM_HASH.hashChars(term), weighted ? idfTable.idf(term) : 1.0);
        }
        return simHash.value();
    }

    /**
     * Checks that {@link #fingerprint} would take {@code text}, without hashing its terms: for a
     * text fingerprinted another way (a short text's MinHash) that must be refused as SimHash
     * refuses it. Hashing and adding the terms were two thirds of a 20-word text's SimHash.
     *
     * @throws IllegalArgumentException as {@link #fingerprint} does
     */
    public void check(String text) {
        if (!features.any(normalized(text))) {
            throw noTermsSlowPath(text);
        }
    }

    /**
     * The features {@link #fingerprint} hashes, in text order with repeats (so counting them
     * gives tf); an {@link IdfTable} for these settings must be keyed by them. Empty if the text
     * has none.
     *
     * @throws IllegalArgumentException if the text is null
     */
    public List<String> terms(String text) {
        return features.features(normalized(text));
    }

    /** The normal form features are cut from; refuses null. */
    private static String normalized(String text) {
        if (text == null) {
            throw new IllegalArgumentException("text is null");
        }
        return Normalization.apply(text);
    }

    public TextSettings settings() {
        return settings;
    }

    @Override
    public String toString() {
        return "TextFingerprinter" + settings;
    }

    private static IllegalArgumentException noTermsSlowPath(String text) {
        String normalized = Normalization.apply(text);
        boolean anyWord = normalized.codePoints().anyMatch(cp -> CharClass.of(cp) != CharClass.OTHER);
        String reason = anyWord
                ? "text has no token after stop-word removal (only stop words): "
                : "text has no word (blank, or only punctuation and symbols): ";
        return new IllegalArgumentException(reason + quote(text));
    }

    private static String quote(String text) {
        return text.length() <= QUOTE_LIMIT
                ? '"' + text + '"'
                : '"' + text.substring(0, QUOTE_LIMIT) + "...\" (" + text.length() + " chars)";
    }

    /** Builds the default instance on first use, not when the class loads. */
    private static final class DefaultHolder {
        static final TextFingerprinter INSTANCE = new TextFingerprinter(TextSettings.defaults(), IdfTable.uniform());
    }
}
