package io.simdex.router.api;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.simdex.core.text.BitMinHash;
import io.simdex.core.text.TextFingerprinter;
import io.simdex.core.text.TextSettings;
import io.simdex.fingerprint.crawl.ContentHash;
import io.simdex.proto.v1.CollectionInfo;
import io.simdex.proto.v1.CollectionSettings;
import io.simdex.proto.v1.CreateCollectionRequest;
import io.simdex.proto.v1.FingerprintRequest;
import io.simdex.proto.v1.HanTokens;
import io.simdex.proto.v1.StopWords;
import io.simdex.router.TestServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.regex.Matcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * New collections get {@link TextSettings#recommended()}; a collection stored before han_tokens
 * and stop_words existed keeps the pipeline it was created with, so its fingerprints never change.
 */
class FeatureDefaultsTest {
    /** English with stop words and Chinese whose HanLP words differ from its characters. */
    private static final String TEXT = "The city council approved the new flood wall on Tuesday. 市政府决定在河流两岸修建新的防洪堤坝。";
    /** Over 300 letters: fingerprinted by SimHash in a new collection too. */
    private static final String LONG_TEXT = (TEXT + " ").repeat(6);
    /** A catalog entry as routers wrote it before han_tokens and stop_words: complete settings without them. */
    private static final String OLD_ENTRY = "{\"name\": \"old\", \"settings\": {\"maxDistance\": 3, \"tokenization\": \"WORDS\","
            + " \"weighting\": \"TF\", \"ngramSize\": 3, \"sketch\": {}}}";

    @TempDir
    Path dir;

    @Test
    void complete_unsetFeatures_hanCharactersAndStopWordsKept() {
        CollectionSettings s = CollectionSettingsRules.complete(CollectionSettings.getDefaultInstance());
        assertEquals(HanTokens.HAN_CHARACTERS, s.getHanTokens());
        assertEquals(StopWords.KEEP_STOP_WORDS, s.getStopWords());
        assertEquals(TextSettings.recommended(), CollectionSettingsRules.fingerprinter(s).settings());
    }

    @Test
    void complete_explicitFeatures_kept() {
        CollectionSettings s = CollectionSettingsRules.complete(CollectionSettings.newBuilder()
                .setHanTokens(HanTokens.HANLP_WORDS).setStopWords(StopWords.DROP_STOP_WORDS).build());
        assertEquals(TextSettings.defaults(), CollectionSettingsRules.fingerprinter(s).settings());
        CollectionSettings kept = CollectionSettingsRules.complete(CollectionSettings.newBuilder().setKeepStopWords(true).build());
        assertEquals(StopWords.KEEP_STOP_WORDS, kept.getStopWords());
    }

    @Test
    void complete_keepStopWordsWithDrop_invalidArgument() {
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> CollectionSettingsRules.complete(
                CollectionSettings.newBuilder().setKeepStopWords(true).setStopWords(StopWords.DROP_STOP_WORDS).build()));
        assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode());
        assertEquals("settings.keep_stop_words is true but stop_words is DROP_STOP_WORDS", e.getStatus().getDescription());
    }

    @Test
    void fingerprinter_settingsStoredWithoutFeatureFields_oldPipeline() {
        CollectionSettings stored = CollectionSettingsRules.complete(CollectionSettings.getDefaultInstance()).toBuilder()
                .clearHanTokens().clearStopWords().build();
        assertEquals(TextSettings.defaults(), CollectionSettingsRules.fingerprinter(stored).settings());
        CollectionSettings keeping = stored.toBuilder().setKeepStopWords(true).build();
        assertEquals(new TextSettings(TextSettings.defaults().tokenization(), TextSettings.defaults().weighting(), 1, false),
                CollectionSettingsRules.fingerprinter(keeping).settings());
    }

    @Test
    void storedCollection_reopened_keepsItsFingerprints_andCreateWithoutSettingsFindsIt() throws Exception {
        try (TestServer s = new TestServer(dir, Clock.systemUTC())) {
            s.stub().createCollection(CreateCollectionRequest.newBuilder().setName("new").build());
        }
        Path catalog = dir.resolve("router").resolve("collections.json");
        Files.writeString(catalog, Files.readString(catalog).replaceFirst("\\[", "[" + Matcher.quoteReplacement(OLD_ENTRY) + ","));
        try (TestServer s = new TestServer(dir, Clock.systemUTC())) {
            long old = fingerprint(s, "old", TEXT);
            long fresh = fingerprint(s, "new", LONG_TEXT);
            assertEquals(TextFingerprinter.defaults().fingerprint(TEXT), old, "stored without short_fingerprint: SimHash for every text");
            assertEquals(TextFingerprinter.of(TextSettings.recommended()).fingerprint(LONG_TEXT), fresh);
            assertEquals(BitMinHash.of(ContentHash.normalise(TEXT), BitMinHash.BinOrder.PRODUCTS_32), fingerprint(s, "new", TEXT),
                    "a new collection's short texts: MinHash");
            assertNotEquals(TextFingerprinter.defaults().fingerprint(LONG_TEXT), fresh, "the text tells the two pipelines apart");

            CollectionInfo again = s.stub().createCollection(CreateCollectionRequest.newBuilder().setName("old").build()).getCollection();
            assertEquals(HanTokens.HAN_TOKENS_UNSPECIFIED, again.getSettings().getHanTokens(), "the stored settings, unchanged");
            assertEquals(Status.Code.ALREADY_EXISTS, assertThrows(StatusRuntimeException.class, () -> s.stub().createCollection(
                    CreateCollectionRequest.newBuilder().setName("old").setSettings(CollectionSettings.newBuilder()
                            .setHanTokens(HanTokens.HAN_CHARACTERS)).build())).getStatus().getCode());
            assertEquals(old, fingerprint(s, "old", TEXT));
        }
    }

    private static long fingerprint(TestServer s, String collection, String text) {
        return s.stub().fingerprint(FingerprintRequest.newBuilder().setCollection(collection).addTexts(text).build()).getFingerprints(0);
    }
}
