package io.simdex.router.api;

import io.simdex.core.text.MinHashSketch;
import io.simdex.core.text.TextFingerprinter;
import io.simdex.core.text.WordCount;
import io.simdex.fingerprint.crawl.ContentHash;
import io.simdex.proto.v1.CollectionSettings;
import io.simdex.router.index.IndexRouter;
import io.simdex.router.index.ShortFingerprintRule;
import io.simdex.router.index.ShortTextRule;
import io.simdex.router.index.SketchRule;
import io.simdex.router.index.Window;

import java.util.Arrays;

/**
 * One collection as a request sees it: its settings, live generations, fingerprinter, short-text
 * rule and short-text fingerprint (null: every text gets its SimHash).
 */
record Target(String name, CollectionSettings settings, Window window, TextFingerprinter text, ShortTextRule shortText,
              ShortFingerprintRule shortFingerprint) {
    /**
     * What the request's texts (normalised; null for fingerprints) are verified by: short texts
     * and sketches, as the collection's settings say; null when it verifies neither. No second
     * probes: what an Insert stores.
     */
    IndexRouter.TextChecks textChecks(String[] normalised) {
        return textChecks(normalised, false, null);
    }

    /**
     * As {@link #textChecks(String[])}, for probing with the texts' fingerprints: each text's
     * candidates are judged by the sketch rule of its fingerprint's kind, and a text near the
     * short-text boundary probes with its other fingerprint too. {@code prints[i]}, if not null,
     * is what fingerprinting text i computed ({@link #print}), not computed again here.
     */
    IndexRouter.TextChecks probeChecks(String[] normalised, TextPrint[] prints) {
        return textChecks(normalised, true, prints);
    }

    private IndexRouter.TextChecks textChecks(String[] normalised, boolean probing, TextPrint[] prints) {
        SketchRule sketchRule = CollectionSettingsRules.sketchRule(settings);
        if (shortText == null && sketchRule == null) {
            return null;
        }
        SketchRule wideRule = CollectionSettingsRules.wideSketchRule(settings);
        int wideMaxWords = settings.getSketch().getWideMaxWords();
        int n = normalised.length;
        String[] shortOnes = new String[n];
        MinHashSketch[] sketches = new MinHashSketch[n];
        SketchRule[] rules = new SketchRule[n];
        int[] secondItems = new int[n];
        long[] secondFps = new long[n];
        SketchRule[] secondRules = new SketchRule[n];
        int seconds = 0;
        for (int i = 0; i < n; i++) {
            if (normalised[i] == null) {
                continue;
            }
            shortOnes[i] = shortText != null && shortText.applies(normalised[i]) ? normalised[i] : null;
            if (sketchRule == null) {
                continue;
            }
            sketches[i] = sketchRule.sketch(normalised[i]);
            rules[i] = sketchRule;
            if (!probing) {
                continue;
            }
            if (shortFingerprint == null) {
                rules[i] = simHashRule(normalised[i], sketchRule, wideRule, wideMaxWords);
                continue;
            }
            TextPrint print = prints == null ? null : prints[i];
            int letters = print != null ? print.letters() : shortFingerprint.lengths().letters(normalised[i]);
            boolean isShort = shortFingerprint.lengths().isShort(letters);
            boolean both = shortFingerprint.lengths().probesBoth(letters);
            // Only a text probed first by its SimHash needs that rule, which counts its words.
            rules[i] = isShort ? shortFingerprint.probeRule() : simHashRule(normalised[i], sketchRule, wideRule, wideMaxWords);
            if (both) {
                // The text's other fingerprint; SimHash cuts the same features from the normalised text as from the text.
                secondItems[seconds] = i;
                secondFps[seconds] = !isShort ? shortFingerprint.fingerprint(normalised[i])
                        : print != null ? print.simHash() : text.fingerprint(normalised[i]);
                // The second probe reads only the buckets of the collection's sketch distance: a
                // SimHash probe takes its candidates within it (not the wide rule's), a MinHash
                // probe those these buckets hold within its own distance. Half the buckets of the
                // first probe's 68, for the copies across the boundary (loadtest/quality/README.md,
                // "Texts near the boundary").
                secondRules[seconds] = isShort ? sketchRule : shortFingerprint.probeRule().readingBucketsOf(sketchRule.candidateDistance());
                seconds++;
            }
        }
        IndexRouter.SecondProbes second = seconds == 0 ? IndexRouter.SecondProbes.NONE : new IndexRouter.SecondProbes(
                Arrays.copyOf(secondItems, seconds), Arrays.copyOf(secondFps, seconds), Arrays.copyOf(secondRules, seconds));
        return new IndexRouter.TextChecks(shortText, shortOnes, rules, sketches, second);
    }

    /** Whether the collection keeps sketches by fingerprint, which go with a fingerprint's last document. */
    boolean keepsSketches() {
        return CollectionSettingsRules.sketchRule(settings) != null;
    }

    /** The sketch rule of a SimHash probe by this text: the wide one up to its words (counted only as far as the limit). */
    private static SketchRule simHashRule(String normalised, SketchRule sketchRule, SketchRule wideRule, int wideMaxWords) {
        return wideRule != null && WordCount.of(normalised, wideMaxWords) <= wideMaxWords ? wideRule : sketchRule;
    }

    /**
     * The fingerprint a text is stored and probed with, validated; INVALID_ARGUMENT names
     * {@code field}. Its SimHash, or its MinHash fingerprint if the collection gives short
     * texts one and it is short; SimHash validates either way (a text without a word is refused).
     */
    long fingerprint(String field, String text) {
        return print(field, text, null).fp();
    }

    /**
     * As {@link #fingerprint(String, String)}, given the text's normal form
     * ({@link ContentHash#normalise}) if known, else null, with what the probe checks of the text
     * need again ({@link #probeChecks}). A short text near the boundary probes with its SimHash
     * too: computing it here validates the text as well, where a short text further from the
     * boundary is only checked.
     */
    TextPrint print(String field, String text, String normalised) {
        Validation.text(field, text);
        String normal = shortFingerprint == null ? null : normalised != null ? normalised : ContentHash.normalise(text);
        int letters = normal == null ? -1 : shortFingerprint.lengths().letters(normal);
        boolean isShort = normal != null && shortFingerprint.lengths().isShort(letters);
        long simHash;
        try {
            if (!isShort) {
                return new TextPrint(this.text.fingerprint(text), letters, 0);
            }
            if (shortFingerprint.lengths().probesBoth(letters)) {
                simHash = this.text.fingerprint(text);
            } else {
                this.text.check(text); // refused as SimHash refuses it, whichever fingerprint it gets
                simHash = 0;
            }
        } catch (IllegalArgumentException e) {
            throw Validation.invalid(field + ": " + e.getMessage());
        }
        return new TextPrint(shortFingerprint.fingerprint(normal), letters, simHash);
    }

    /**
     * What fingerprinting a text computed: its fingerprint, its letters and digits as far as
     * {@link io.simdex.core.text.ShortTextFingerprint#letters} counts them (-1: not counted, the
     * collection gives short texts no MinHash fingerprint) and, for a short text that probes
     * with both fingerprints, its SimHash (else 0).
     */
    record TextPrint(long fp, int letters, long simHash) {
    }
}
