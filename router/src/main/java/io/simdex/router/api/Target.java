package io.simdex.router.api;

import io.simdex.core.text.MinHashSketch;
import io.simdex.core.text.TextFingerprinter;
import io.simdex.proto.v1.CollectionSettings;
import io.simdex.router.index.IndexRouter;
import io.simdex.router.index.ShortTextRule;
import io.simdex.router.index.SketchRule;
import io.simdex.router.index.Window;

/** One collection as a request sees it: its settings, live generations, fingerprinter and short-text rule. */
record Target(String name, CollectionSettings settings, Window window, TextFingerprinter text, ShortTextRule shortText) {
    /**
     * What the request's texts (normalised; null for fingerprints) are verified by: short texts
     * and sketches, as the collection's settings say; null when it verifies neither.
     */
    IndexRouter.TextChecks textChecks(String[] normalised) {
        SketchRule sketchRule = CollectionSettingsRules.sketchRule(settings);
        if (shortText == null && sketchRule == null) {
            return null;
        }
        String[] shortOnes = new String[normalised.length];
        MinHashSketch[] sketches = new MinHashSketch[normalised.length];
        for (int i = 0; i < normalised.length; i++) {
            if (normalised[i] == null) {
                continue;
            }
            shortOnes[i] = shortText != null && shortText.applies(normalised[i]) ? normalised[i] : null;
            sketches[i] = sketchRule != null ? sketchRule.sketch(normalised[i]) : null;
        }
        return new IndexRouter.TextChecks(shortText, shortOnes, sketchRule, sketches);
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
