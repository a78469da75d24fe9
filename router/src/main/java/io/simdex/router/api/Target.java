package io.simdex.router.api;

import io.simdex.core.text.TextFingerprinter;
import io.simdex.proto.v1.CollectionSettings;
import io.simdex.router.index.IndexRouter;
import io.simdex.router.index.ShortTextRule;
import io.simdex.router.index.Window;

/** One collection as a request sees it: its settings, live generations, fingerprinter and short-text rule. */
record Target(String name, CollectionSettings settings, Window window, TextFingerprinter text, ShortTextRule shortText) {
    /** The request's short texts, or null when the collection does not verify them. */
    IndexRouter.ShortTexts shortTexts(String[] normalised) {
        if (shortText == null) {
            return null;
        }
        String[] shortOnes = new String[normalised.length];
        for (int i = 0; i < normalised.length; i++) {
            shortOnes[i] = normalised[i] != null && shortText.applies(normalised[i]) ? normalised[i] : null;
        }
        return new IndexRouter.ShortTexts(shortText, shortOnes);
    }

    /** The fingerprint of a request's text, validated; INVALID_ARGUMENT names {@code field}. */
    long fingerprint(String field, String text) {
        Validation.text(field, text);
        try {
            return this.text.fingerprint(text);
        } catch (IllegalArgumentException e) {
            throw Validation.invalid(field + ": " + e.getMessage());
        }
    }
}
