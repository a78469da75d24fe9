package io.simdex.core.text;

import io.simdex.fingerprint.crawl.ContentHash;

import java.util.Locale;

/**
 * The one normal form every feature is cut from: Unicode NFKC, then lower case. Applied to
 * documents, to stop-word lists and to IDF table keys alike, so that they always meet.
 *
 * <p>NFKC folds compatibility forms onto their plain letters: full-width {@code ＡＢＣ１２３}
 * becomes {@code ABC123}, half-width katakana become full-width, ligatures split. Lower-casing
 * uses {@link Locale#ROOT} so that a Turkish default locale does not change fingerprints. It is
 * {@link ContentHash#fold}, the fold under the content hash's normal form, so that equal content
 * hashes imply equal fingerprints.
 */
final class Normalization {
    private Normalization() {
    }

    static String apply(String text) {
        return ContentHash.fold(text);
    }
}
