package io.simdex.core.text;

import io.simdex.fingerprint.Hamming;
import net.openhft.hashing.LongHashFunction;
import org.junit.jupiter.api.Test;

import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static io.simdex.core.text.TestTexts.BAKERY_EN;
import static io.simdex.core.text.TestTexts.METRO_ZH;
import static io.simdex.core.text.TestTexts.RIVER_EN;
import static io.simdex.core.text.TestTexts.TEA_ZH;
import static io.simdex.core.text.TestTexts.edit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TextFingerprinterTest {
    private static final TextSettings KEEP_STOP_WORDS = new TextSettings(Tokenization.WORDS, Weighting.TF, 1, false);

    private final TextFingerprinter fingerprinter = TextFingerprinter.defaults();

    @Test
    void fingerprint_singleWord_isXx3HashOfLowercasedWord() {
        // One term of weight 1: each bit's counter is +1 or -1, so the fingerprint is the hash.
        assertEquals(LongHashFunction.xx3().hashChars("floodplain"), fingerprinter.fingerprint("Floodplain!"));
        assertEquals(LongHashFunction.xx3().hashChars("堤坝"), fingerprinter.fingerprint("堤坝。"));
    }

    @Test
    void fingerprint_sameText_sameAcrossInstancesAndThreads() throws Exception {
        TextFingerprinter other = TextFingerprinter.of(TextSettings.defaults());
        long expected = fingerprinter.fingerprint(METRO_ZH);
        assertEquals(expected, other.fingerprint(METRO_ZH));
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<Long>> results = pool.invokeAll(
                    Collections.nCopies(16, () -> other.fingerprint(METRO_ZH)));
            for (Future<Long> result : results) {
                assertEquals(expected, result.get());
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void fingerprint_articles_matchPinnedValues() {
        // Fingerprints are persisted: a change here (HanLP upgrade, stop-word list, normalisation,
        // hash) invalidates stored data and needs a migration, not a new expected value.
        assertEquals(0xf094a473fba62066L, fingerprinter.fingerprint(RIVER_EN));
        assertEquals(0x76f6eaff6227743eL, fingerprinter.fingerprint(BAKERY_EN));
        assertEquals(0x1d22ca361be0f7a8L, fingerprinter.fingerprint(METRO_ZH));
        assertEquals(0x14005048ac2c03a2L, fingerprinter.fingerprint(TEA_ZH));
    }

    @Test
    void fingerprint_recommendedSettings_matchPinnedValues() {
        // What new collections store: the same rule as above.
        TextFingerprinter recommended = TextFingerprinter.of(TextSettings.recommended());
        assertEquals(0x99e14914b25b8046L, recommended.fingerprint(RIVER_EN));
        assertEquals(0x19e2cb3cf24b4246L, recommended.fingerprint(BAKERY_EN));
        assertEquals(0x27308eb03ec61434L, recommended.fingerprint(METRO_ZH));
        assertEquals(0xed0596a294c6ab95L, recommended.fingerprint(TEA_ZH));
    }

    @Test
    void fingerprint_builtInIdf_matchPinnedValues() {
        // The built-in idf table is part of the data format too: regenerating it is a migration.
        TextFingerprinter idf = TextFingerprinter.of(
                new TextSettings(Tokenization.WORDS, Weighting.TF_IDF, 1, true, HanTokens.CHARACTERS), IdfTable.builtIn());
        assertEquals(0xf095a1f3bba76066L, idf.fingerprint(RIVER_EN));
        assertEquals(0x2f33ebb2bfce21adL, idf.fingerprint(METRO_ZH));
    }

    @Test
    void fingerprint_englishStopWordsInserted_sameFingerprint() {
        String padded = edit(edit(RIVER_EN, "restore nearly forty acres", "restore the nearly forty acres of the"),
                "replant native willows", "then replant all of the native willows");
        assertEquals(fingerprinter.fingerprint(RIVER_EN), fingerprinter.fingerprint(padded));
        TextFingerprinter keeping = TextFingerprinter.of(KEEP_STOP_WORDS);
        assertNotEquals(keeping.fingerprint(RIVER_EN), keeping.fingerprint(padded), "insertions must matter when kept");
    }

    @Test
    void fingerprint_chineseStopWordsInserted_withinDistanceOne() {
        String padded = edit(edit(TEA_ZH, "带动了农家乐和民宿的生意", "带动了农家乐的和民宿的生意"),
                "新茶的品质明显好于往年", "新茶的品质也是明显好于往年的");
        int distance = Hamming.distance(fingerprinter.fingerprint(TEA_ZH), fingerprinter.fingerprint(padded));
        assertTrue(distance <= 1, "distance " + distance);
        TextFingerprinter keeping = TextFingerprinter.of(KEEP_STOP_WORDS);
        assertNotEquals(keeping.fingerprint(TEA_ZH), keeping.fingerprint(padded), "insertions must matter when kept");
    }

    @Test
    void fingerprint_onlyStopWords_throwsNamingStopWords() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> fingerprinter.fingerprint("The, of and to! 的了是"));
        assertEquals("text has no token after stop-word removal (only stop words): \"The, of and to! 的了是\"",
                e.getMessage());
    }

    @Test
    void check_refusesWhatFingerprintRefuses_withTheSameMessage() {
        for (String text : new String[] {"The, of and to! 的了是", "", "，。！?-- ...", null}) {
            IllegalArgumentException byFingerprint = assertThrows(IllegalArgumentException.class, () -> fingerprinter.fingerprint(text));
            IllegalArgumentException byCheck = assertThrows(IllegalArgumentException.class, () -> fingerprinter.check(text));
            assertEquals(byFingerprint.getMessage(), byCheck.getMessage());
        }
        fingerprinter.check(TEA_ZH);
        TextFingerprinter.of(KEEP_STOP_WORDS).check("The, of and to!");
    }

    /**
     * check stops at the first feature ({@link FeatureExtractor#any}) where fingerprint lists them
     * all: over every pipeline and texts that are all stop words but one word at either end, only
     * punctuation, Han stop characters, marks, and stop words that are such only in one case.
     */
    @Test
    void check_refusesExactlyTheTextsWithoutTerms_inEveryPipeline() {
        TextSettings[] pipelines = {TextSettings.defaults(), TextSettings.recommended(), TextSettings.charNgrams(), KEEP_STOP_WORDS,
                new TextSettings(Tokenization.WORDS, Weighting.TF, 2, true), new TextSettings(Tokenization.WORDS, Weighting.TF, 3, true, HanTokens.CHARACTERS),
                new TextSettings(Tokenization.CHAR_NGRAMS, Weighting.TF, 4, false), new TextSettings(Tokenization.CHAR_NGRAMS, Weighting.TF, 1, true)};
        String[] texts = {"The, of and to!", "the of and to river", "river the of and to", "THE OF AND", "的了是", "的了是茶", "茶的了是",
                "，。！?-- ...", "", " ", "\u0301\u0301", "a", "of", "的", "目的", "１２３", "ｔｈｅ ｏｆ", "the 的 of 了 ...", "x\u0301", "the\u00a0of\u3000and",
                "ﬁ", "i", "it is what it is", "了了了了了了了了", "...的...", "2024", "the 2024", "?!", "😀", "the 😀 of"};
        for (TextSettings settings : pipelines) {
            TextFingerprinter f = TextFingerprinter.of(settings);
            for (String text : texts) {
                boolean hasTerms = !f.terms(text).isEmpty();
                boolean accepted;
                try {
                    f.check(text);
                    accepted = true;
                } catch (IllegalArgumentException e) {
                    accepted = false;
                }
                assertEquals(hasTerms, accepted, settings + ": \"" + text + "\"");
            }
        }
    }

    @Test
    void fingerprint_nullText_throws() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> fingerprinter.fingerprint(null));
        assertEquals("text is null", e.getMessage());
    }

    @Test
    void fingerprint_blankOrPunctuationOnly_throwsNamingNoWord() {
        for (String text : new String[] {"", "   \n\t", "，。！?-- ..."}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> fingerprinter.fingerprint(text));
            assertTrue(e.getMessage().startsWith("text has no word (blank, or only punctuation and symbols)"), e.getMessage());
        }
    }

    @Test
    void fingerprint_longRejectedText_messageQuotesOnlyAPrefix() {
        String text = "the ".repeat(100);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> fingerprinter.fingerprint(text));
        assertTrue(e.getMessage().endsWith("...\" (400 chars)"), e.getMessage());
    }

    @Test
    void fingerprint_stopWordsKept_onlyStopWordsAccepted() {
        assertEquals(TextFingerprinter.of(KEEP_STOP_WORDS).fingerprint("the"), LongHashFunction.xx3().hashChars("the"));
    }

    @Test
    void terms_default_dropsStopWordsKeepsRepeats() {
        assertEquals(List.of("river", "floods", "river", "堤坝", "河流"), fingerprinter.terms("The river floods; the RIVER. 堤坝的河流"));
    }

    @Test
    void terms_wordShingles_joinConsecutiveTokensAfterStopWords() {
        TextFingerprinter pairs = TextFingerprinter.of(new TextSettings(Tokenization.WORDS, Weighting.TF, 2, true));
        assertEquals(List.of("river bank", "bank floods"), pairs.terms("the river of the bank floods"));
        assertEquals(List.of("river"), pairs.terms("the river"));
    }

    @Test
    void defaults_sharedInstanceWithDefaultSettings() {
        assertSame(TextFingerprinter.defaults(), TextFingerprinter.defaults());
        assertEquals(TextSettings.defaults(), TextFingerprinter.defaults().settings());
    }

    @Test
    void of_nullSettings_throws() {
        assertThrows(IllegalArgumentException.class, () -> TextFingerprinter.of(null));
    }

    /**
     * Where the features are spans of the text (new collections' words: Han characters alone,
     * stop words kept, TF), fingerprint() hashes them in place; it must give the SimHash of the
     * listed terms, on texts of every script the tokenizer cuts: Latin, digits, Han in and beyond
     * the BMP, kana, Hangul, combining marks, emoji and punctuation between them. The other
     * pipelines (stop words dropped, shingles, trigrams, HanLP words) list their terms as before.
     */
    @Test
    void fingerprint_hashesSpansInPlace_asTheListedTerms() {
        LongHashFunction xx3 = LongHashFunction.xx3();
        String[] pieces = {"river", "Levee", "42", "x7", "的", "河流", "\uD840\uDC00\uD840\uDC01", "ひらがな", "カタカナ", "한국어",
            "e\u0301", "\uD83D\uDE00", ",", " ", "  ", "...", "-", "\u3002", "Ｆｕｌｌ", "ß", "İ"};
        java.util.Random random = new java.util.Random(9);
        List<TextSettings> settings = List.of(TextSettings.recommended(),
                new TextSettings(Tokenization.WORDS, Weighting.TF, 1, false, HanTokens.CHARACTERS),
                new TextSettings(Tokenization.WORDS, Weighting.TF, 2, false, HanTokens.CHARACTERS),
                new TextSettings(Tokenization.WORDS, Weighting.TF, 1, true, HanTokens.CHARACTERS),
                new TextSettings(Tokenization.CHAR_NGRAMS, Weighting.TF, TextSettings.DEFAULT_NGRAM_SIZE, false, HanTokens.CHARACTERS));
        for (TextSettings setting : settings) {
            TextFingerprinter f = TextFingerprinter.of(setting);
            for (int round = 0; round < 400; round++) {
                StringBuilder text = new StringBuilder();
                for (int k = 1 + random.nextInt(30); k > 0; k--) {
                    text.append(pieces[random.nextInt(pieces.length)]);
                    if (random.nextInt(3) > 0) {
                        text.append(' ');
                    }
                }
                String t = round < 4 ? List.of(RIVER_EN, BAKERY_EN, METRO_ZH, TEA_ZH).get(round) : text.toString();
                List<String> terms = f.terms(t);
                if (terms.isEmpty()) {
                    assertThrows(IllegalArgumentException.class, () -> f.fingerprint(t), t);
                    continue;
                }
                long[] hashes = terms.stream().mapToLong(xx3::hashChars).toArray();
                double[] weights = new double[hashes.length];
                java.util.Arrays.fill(weights, 1.0);
                assertEquals(SimHash.of(hashes, weights), f.fingerprint(t), setting + ": " + t);
            }
        }
    }
}
