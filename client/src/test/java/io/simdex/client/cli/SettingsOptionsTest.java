package io.simdex.client.cli;

import io.simdex.proto.v1.CollectionSettings;
import io.simdex.proto.v1.HanTokens;
import io.simdex.proto.v1.ShortFingerprintBlocks;
import io.simdex.proto.v1.ShortFingerprintOrder;
import io.simdex.proto.v1.ShortFingerprintSettings;
import io.simdex.proto.v1.StopWords;
import io.simdex.proto.v1.SketchSettings;
import io.simdex.proto.v1.Tokenization;
import io.simdex.proto.v1.Weighting;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SettingsOptionsTest {
    @Command(name = "create")
    static final class Holder {
        @Mixin
        SettingsOptions settings;
    }

    private static CollectionSettings parse(String... args) throws BadInputException {
        Holder h = new Holder();
        new CommandLine(h).parseArgs(args);
        return h.settings.toProto();
    }

    @Test
    void sketchFlags_unsetLeavesTheServerDefault_onAndOffExplicit() throws BadInputException {
        assertFalse(parse().hasSketch());
        assertEquals(SketchSettings.newBuilder().setEnabled(true).build(), parse("--sketch").getSketch());
        assertEquals(SketchSettings.newBuilder().setEnabled(false).build(), parse("--no-sketch").getSketch());
        assertEquals(SketchSettings.newBuilder().setEnabled(true).setMinJaccard(0.5).setCandidateDistance(6).build(),
                parse("--sketch-min-jaccard", "0.5", "--sketch-distance", "6").getSketch(), "a sketch option turns sketches on");
    }

    @Test
    void sketchWideFlags_setTheWideRadiusAndItsLength() throws BadInputException {
        assertEquals(SketchSettings.newBuilder().setEnabled(true).setWideCandidateDistance(6).setWideMaxWords(500).build(),
                parse("--sketch-wide-distance", "6", "--sketch-wide-words", "500").getSketch(), "a wide option turns sketches on");
        assertThrows(BadInputException.class, () -> parse("--no-sketch", "--sketch-wide-words", "500"));
    }

    @Test
    void sketchFlags_tunedButOff_rejected() {
        BadInputException e = assertThrows(BadInputException.class, () -> parse("--no-sketch", "--sketch-min-jaccard", "0.5"));
        assertTrue(e.getMessage().contains("--no-sketch"), e.getMessage());
    }

    @Test
    void builtInIdf_asksForTfIdf_unlessWeightingIsGiven_andIsDescribed() throws BadInputException {
        CollectionSettings s = parse("--built-in-idf");
        assertTrue(s.getBuiltInIdf());
        assertEquals(Weighting.TF_IDF, s.getWeighting());
        assertEquals(Weighting.TF, parse("--built-in-idf", "--weighting", "tf").getWeighting(), "the server judges what was asked");
        assertTrue(SettingsOptions.describe(s).contains(" tf-idf(built-in)"), SettingsOptions.describe(s));
        assertTrue(SettingsOptions.describe(s.toBuilder().putIdf("river", 2.0).build()).contains(" tf-idf(built-in, 1 terms given)"));
    }

    @Test
    void describe_sketchOn_shown_off_not() {
        CollectionSettings.Builder s = CollectionSettings.newBuilder();
        assertFalse(SettingsOptions.describe(s.setSketch(SketchSettings.newBuilder().setEnabled(false)).build()).contains("sketch"));
        assertTrue(SettingsOptions.describe(s.setSketch(SketchSettings.newBuilder().setEnabled(true).setMinJaccard(0.4)
                .setCandidateDistance(7)).build()).contains(" sketch(k<=7, jaccard>=0.4)"));
        assertTrue(SettingsOptions.describe(s.setSketch(SketchSettings.newBuilder().setEnabled(true).setMinJaccard(0.4)
                .setCandidateDistance(5).setWideCandidateDistance(7).setWideMaxWords(150)).build())
                .contains(" sketch(k<=5, k<=7 up to 150 words, jaccard>=0.4)"));
    }

    @Test
    void shortFingerprintFlags_unsetLeavesTheServerDefault_tunedTurnsItOn_offWithTuningRejected() throws BadInputException {
        assertFalse(parse().hasShortFingerprint());
        assertEquals(ShortFingerprintSettings.newBuilder().setEnabled(false).build(), parse("--no-short-fingerprint").getShortFingerprint());
        assertEquals(ShortFingerprintSettings.newBuilder().setEnabled(true).setMaxLetters(200).setCandidateDistance(10).setMinJaccard(0.3).build(),
                parse("--short-fingerprint-letters", "200", "--short-fingerprint-distance", "10", "--short-fingerprint-min-jaccard", "0.3")
                        .getShortFingerprint());
        assertEquals(ShortFingerprintSettings.newBuilder().setEnabled(true).setBlocks(ShortFingerprintBlocks.WHOLE_TEXT_BLOCKS).build(),
                parse("--short-fingerprint-blocks", "whole").getShortFingerprint());
        BadInputException e = assertThrows(BadInputException.class,
                () -> parse("--no-short-fingerprint", "--short-fingerprint-min-jaccard", "0.3"));
        assertTrue(e.getMessage().contains("--no-short-fingerprint"), e.getMessage());
    }

    @Test
    void describe_shortFingerprint_showsItsThreshold_unlessStoredBeforeItHadOne() {
        ShortFingerprintSettings.Builder t = ShortFingerprintSettings.newBuilder().setEnabled(true).setMaxLetters(300).setCandidateDistance(12);
        assertTrue(SettingsOptions.describe(CollectionSettings.newBuilder().setShortFingerprint(t.clone().setMinJaccard(0.2)
                        .setOrder(ShortFingerprintOrder.PRODUCTS_32)).build())
                .contains(" short-fingerprint(<=300 letters, k<=12, jaccard>=0.2, blocks=whole, order=products32)"));
        assertTrue(SettingsOptions.describe(CollectionSettings.newBuilder().setShortFingerprint(t.clone().setMinJaccard(0.2)
                        .setBlocks(ShortFingerprintBlocks.PARTITIONED_BLOCKS).setOrder(ShortFingerprintOrder.PRODUCTS_64)).build())
                .contains(" short-fingerprint(<=300 letters, k<=12, jaccard>=0.2, blocks=partitioned, order=products64)"));
        assertTrue(SettingsOptions.describe(CollectionSettings.newBuilder().setShortFingerprint(t).build())
                .contains(" short-fingerprint(<=300 letters, k<=12, blocks=whole, order=products64)"), "stored before the order existed: 64-bit products");
    }

    @Test
    void shortFingerprintOrder_isSentOnlyWhenGiven() throws Exception {
        assertEquals(ShortFingerprintOrder.PRODUCTS_64,
                parse("--short-fingerprint-order", "products64").getShortFingerprint().getOrder());
        assertEquals(ShortFingerprintOrder.PRODUCTS_32,
                parse("--short-fingerprint-order", "products32").getShortFingerprint().getOrder());
        assertFalse(parse().hasShortFingerprint(), "the server fills in its default");
        BadInputException e = assertThrows(BadInputException.class,
                () -> parse("--no-short-fingerprint", "--short-fingerprint-order", "products64"));
        assertTrue(e.getMessage().contains("--no-short-fingerprint"), e.getMessage());
    }

    @Test
    void featureFlags_unsetLeaveTheServerDefault_setChooseThePipeline() throws BadInputException {
        assertEquals(StopWords.STOP_WORDS_UNSPECIFIED, parse().getStopWords());
        assertEquals(HanTokens.HAN_TOKENS_UNSPECIFIED, parse().getHanTokens());
        assertEquals(StopWords.DROP_STOP_WORDS, parse("--drop-stop-words").getStopWords());
        assertEquals(HanTokens.HANLP_WORDS, parse("--han-tokens", "words").getHanTokens());
        assertEquals(HanTokens.HAN_CHARACTERS, parse("--han-tokens", "characters").getHanTokens());
        assertThrows(BadInputException.class, () -> parse("--drop-stop-words", "--keep-stop-words"));
        BadInputException e = assertThrows(BadInputException.class, () -> parse("--han-tokens", "bigrams"));
        assertTrue(e.getMessage().contains("bigrams"), e.getMessage());
    }

    @Test
    void describe_namesTheFeaturePipeline_storedBeforeTheFieldsExisted_asThoseCollectionsRun() {
        CollectionSettings stored = CollectionSettings.newBuilder().setTokenization(Tokenization.WORDS).setWeighting(Weighting.TF).build();
        assertTrue(SettingsOptions.describe(stored.toBuilder().setHanTokens(HanTokens.HAN_CHARACTERS)
                .setStopWords(StopWords.KEEP_STOP_WORDS).build()).contains(" words han=characters stop-words=kept tf "));
        assertTrue(SettingsOptions.describe(stored).contains(" words han=hanlp-words stop-words=dropped tf "),
                "old settings: HanLP words, keep_stop_words false drops");
        assertTrue(SettingsOptions.describe(stored.toBuilder().setKeepStopWords(true).build()).contains(" stop-words=kept "));
        String ngrams = SettingsOptions.describe(stored.toBuilder().setTokenization(Tokenization.CHAR_NGRAMS)
                .setNgramSize(3).setStopWords(StopWords.DROP_STOP_WORDS).build());
        assertTrue(ngrams.contains("char_ngrams(3) stop-words=dropped tf"), ngrams);
        assertFalse(ngrams.contains("han="), "Han tokens only matter to words: " + ngrams);
    }
}
