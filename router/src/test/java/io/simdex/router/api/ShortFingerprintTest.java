package io.simdex.router.api;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.simdex.core.text.BitMinHash;
import io.simdex.core.text.MinHashSketch;
import io.simdex.core.text.ShortTextFingerprint;
import io.simdex.core.text.Sketcher;
import io.simdex.core.text.TextFingerprinter;
import io.simdex.core.text.TextSettings;
import io.simdex.core.text.WordCount;
import io.simdex.fingerprint.crawl.ContentHash;
import io.simdex.proto.v1.CollectionSettings;
import io.simdex.proto.v1.CreateCollectionRequest;
import io.simdex.proto.v1.DedupRequest;
import io.simdex.proto.v1.DedupResult;
import io.simdex.proto.v1.Document;
import io.simdex.proto.v1.FingerprintRequest;
import io.simdex.proto.v1.InsertRequest;
import io.simdex.proto.v1.ListCollectionsRequest;
import io.simdex.proto.v1.Probe;
import io.simdex.proto.v1.QueryRequest;
import io.simdex.proto.v1.QueryResult;
import io.simdex.proto.v1.ShortFingerprintBlocks;
import io.simdex.proto.v1.ShortFingerprintOrder;
import io.simdex.proto.v1.ShortFingerprintSettings;
import io.simdex.proto.v1.SketchSettings;
import io.simdex.proto.v1.StatsRequest;
import io.simdex.proto.v1.StopWords;
import io.simdex.router.TestServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.simdex.proto.v1.DeleteRequest;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;

import static io.simdex.core.text.BitMinHash.BinOrder.PRODUCTS_32;
import static io.simdex.core.text.BitMinHash.BinOrder.PRODUCTS_64;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Short texts fingerprinted by 1-bit MinHash in a collection's defaults, over gRPC. */
class ShortFingerprintTest {
    private static final String COUNCIL = "The city council voted on Tuesday to restore the wetlands north of the harbour, "
            + "ending three years of hearings, lawsuits and petitions";
    private static final String POST = "今天下午三点地铁二号线因设备故障暂停运营，预计一小时后恢复";

    @TempDir
    Path dir;

    @Test
    void newCollections_fingerprintShortTextsByMinHash_longOnesBySimHash_andFillInTheDefaults() throws Exception {
        try (TestServer s = new TestServer(dir, Clock.systemUTC())) {
            CollectionSettings defaults = s.stub().listCollections(ListCollectionsRequest.getDefaultInstance()).getCollections(0).getSettings();
            assertEquals(ShortFingerprintSettings.newBuilder().setEnabled(true).setMaxLetters(300).setCandidateDistance(12).setMinJaccard(0.2)
                    .setBlocks(ShortFingerprintBlocks.WHOLE_TEXT_BLOCKS).setOrder(ShortFingerprintOrder.PRODUCTS_32).build(), defaults.getShortFingerprint());
            String longText = (COUNCIL + " ").repeat(3);
            assertTrue(BitMinHash.letters(ContentHash.normalise(longText)) > 300);
            List<Long> fps = s.stub().fingerprint(FingerprintRequest.newBuilder().addTexts(COUNCIL).addTexts(POST).addTexts(longText).build())
                    .getFingerprintsList();
            assertEquals(List.of(BitMinHash.of(ContentHash.normalise(COUNCIL), PRODUCTS_32), BitMinHash.of(ContentHash.normalise(POST), PRODUCTS_32),
                    TextFingerprinter.of(TextSettings.recommended()).fingerprint(longText)), fps);

            s.stub().createCollection(CreateCollectionRequest.newBuilder().setName("simhash").setSettings(CollectionSettings.newBuilder()
                    .setShortFingerprint(ShortFingerprintSettings.newBuilder().setEnabled(false))).build());
            s.stub().createCollection(CreateCollectionRequest.newBuilder().setName("plain").setSettings(CollectionSettings.newBuilder()
                    .setSketch(SketchSettings.newBuilder().setEnabled(false))).build());
            long simHash = TextFingerprinter.of(TextSettings.recommended()).fingerprint(COUNCIL);
            for (String c : List.of("simhash", "plain")) {
                assertEquals(simHash, s.stub().fingerprint(FingerprintRequest.newBuilder().setCollection(c).addTexts(COUNCIL).build())
                        .getFingerprints(0), c);
            }
            CollectionSettings plain = s.stub().listCollections(ListCollectionsRequest.getDefaultInstance()).getCollectionsList().stream()
                    .filter(i -> i.getName().equals("plain")).findFirst().orElseThrow().getSettings();
            assertFalse(plain.getShortFingerprint().getEnabled(), "without sketches: off");
        }
    }

    @Test
    void shortTextsSimHashWouldRefuse_invalidArgument_andNothingStored() throws Exception {
        try (TestServer s = new TestServer(dir, Clock.systemUTC())) {
            s.stub().createCollection(CreateCollectionRequest.newBuilder().setName("dropping").setSettings(CollectionSettings.newBuilder()
                    .setStopWords(StopWords.DROP_STOP_WORDS)).build());
            // The texts are short, so they would get a MinHash fingerprint: they are refused as SimHash refuses them. The
            // last, of 250 letters, also probes with its SimHash (which refuses it), the others are only checked.
            String[][] refused = {{"", "，。！?-- ...", "text has no word"}, {"dropping", "The, of and to!", "only stop words"},
                    {"dropping", "The, of and to! ".repeat(25), "only stop words"}};
            assertTrue(new ShortTextFingerprint(ShortTextFingerprint.DEFAULT_MAX_LETTERS).probesBoth(BitMinHash.letters(ContentHash.normalise(refused[2][1]))));
            for (String[] r : refused) {
                assertTrue(new ShortTextFingerprint(ShortTextFingerprint.DEFAULT_MAX_LETTERS).isShort(BitMinHash.letters(ContentHash.normalise(r[1]))));
                StatusRuntimeException f = assertThrows(StatusRuntimeException.class, () -> s.stub().fingerprint(
                        FingerprintRequest.newBuilder().setCollection(r[0]).addTexts(r[1]).build()));
                assertEquals(Status.Code.INVALID_ARGUMENT, f.getStatus().getCode());
                assertTrue(f.getStatus().getDescription().contains(r[2]), f.getStatus().getDescription());
                StatusRuntimeException i = assertThrows(StatusRuntimeException.class, () -> s.stub().insert(InsertRequest.newBuilder()
                        .setCollection(r[0]).addDocuments(Document.newBuilder().setId("ok").setText(POST))
                        .addDocuments(Document.newBuilder().setId("bad").setText(r[1])).build()));
                assertEquals(Status.Code.INVALID_ARGUMENT, i.getStatus().getCode());
                assertTrue(i.getStatus().getDescription().contains(r[2]), i.getStatus().getDescription());
                assertEquals(0, s.stub().stats(StatsRequest.newBuilder().setCollection(r[0]).build()).getDocuments(), r[0]);
            }
            // Stop words kept (the default): a short text of stop words is a text like any other.
            s.stub().insert(InsertRequest.newBuilder().addDocuments(Document.newBuilder().setId("stop").setText("The, of and to!")).build());
            assertEquals(1, s.stub().stats(StatsRequest.getDefaultInstance()).getDocuments());
        }
    }

    @Test
    void badShortFingerprintSettings_invalidArgument_andNothingCreated() throws Exception {
        try (TestServer s = new TestServer(dir, Clock.systemUTC())) {
            ShortFingerprintSettings.Builder on = ShortFingerprintSettings.newBuilder().setEnabled(true);
            assertInvalid(s, CollectionSettings.newBuilder().setShortFingerprint(on).setSketch(SketchSettings.newBuilder().setEnabled(false)),
                    "settings.short_fingerprint needs settings.sketch");
            assertInvalid(s, CollectionSettings.newBuilder().setShortFingerprint(on.clone().setMaxLetters(100_001)),
                    "settings.short_fingerprint.max_letters 100001 outside 1..100000");
            assertInvalid(s, CollectionSettings.newBuilder().setShortFingerprint(on.clone().setCandidateDistance(13)),
                    "settings.short_fingerprint.candidate_distance 13 outside 0..12");
            assertInvalid(s, CollectionSettings.newBuilder().setShortFingerprint(on.clone().setMinJaccard(1.5)),
                    "settings.short_fingerprint.min_jaccard 1.5 outside (0, 1]");
            assertInvalid(s, CollectionSettings.newBuilder().setShortFingerprint(on.clone().setMinJaccard(-0.1)),
                    "settings.short_fingerprint.min_jaccard -0.1 outside (0, 1]");
            assertInvalid(s, CollectionSettings.newBuilder().setShortFingerprint(on.clone().setBlocksValue(7)),
                    "settings.short_fingerprint.blocks has an unknown value 7");
            assertEquals(1, s.stub().listCollections(ListCollectionsRequest.getDefaultInstance()).getCollectionsCount(), "only the default");
        }
    }

    @Test
    void settingsStoredWithoutTheField_keepSimHashForEveryText() {
        CollectionSettings stored = CollectionSettingsRules.complete(CollectionSettings.getDefaultInstance()).toBuilder()
                .clearShortFingerprint().build();
        assertNull(CollectionSettingsRules.shortFingerprintRule(stored));
        assertTrue(CollectionSettingsRules.sameSettings(stored, CollectionSettings.getDefaultInstance()),
                "a create without settings finds the collection stored before the field existed");
    }

    @Test
    void settingsStoredWithoutTheirOwnThreshold_verifyMinHashCandidatesAtTheSketchs() {
        CollectionSettings stored = CollectionSettingsRules.complete(CollectionSettings.getDefaultInstance()).toBuilder()
                .setShortFingerprint(ShortFingerprintSettings.newBuilder().setEnabled(true).setMaxLetters(300).setCandidateDistance(12))
                .build();
        assertEquals(0.4, CollectionSettingsRules.shortFingerprintRule(stored).probeRule().minJaccard());
        assertEquals(0.2, CollectionSettingsRules.shortFingerprintRule(CollectionSettingsRules.complete(CollectionSettings.getDefaultInstance()))
                .probeRule().minJaccard());
        assertTrue(CollectionSettingsRules.sameSettings(stored, CollectionSettings.getDefaultInstance()),
                "a create without settings finds the collection stored before the field existed");
        assertFalse(CollectionSettingsRules.sameSettings(stored, CollectionSettings.newBuilder()
                .setShortFingerprint(ShortFingerprintSettings.newBuilder().setEnabled(true).setMinJaccard(0.3)).build()));
    }

    /**
     * A collection created with partitioned blocks stores and probes short texts by them, long
     * ones by SimHash still; settings stored before blocks existed read as whole-text blocks, so
     * their stored fingerprints keep matching their probes, and a create without settings finds
     * them while one asking for partitioned blocks does not.
     */
    @Test
    void partitionedBlocks_chosenPerCollection_andSettingsStoredWithoutThemKeepWholeTextBlocks() throws Exception {
        try (TestServer s = new TestServer(dir, Clock.systemUTC())) {
            s.stub().createCollection(CreateCollectionRequest.newBuilder().setName("posts").setSettings(CollectionSettings.newBuilder()
                    .setShortFingerprint(ShortFingerprintSettings.newBuilder().setEnabled(true)
                            .setBlocks(ShortFingerprintBlocks.PARTITIONED_BLOCKS))).build());
            String longText = (COUNCIL + " ").repeat(3);
            assertEquals(List.of(BitMinHash.partitioned(ContentHash.normalise(POST), PRODUCTS_32), TextFingerprinter.of(TextSettings.recommended())
                    .fingerprint(longText)), s.stub().fingerprint(FingerprintRequest.newBuilder().setCollection("posts").addTexts(POST)
                    .addTexts(longText).build()).getFingerprintsList());
        }
        CollectionSettings stored = CollectionSettingsRules.complete(CollectionSettings.getDefaultInstance()).toBuilder()
                .setShortFingerprint(ShortFingerprintSettings.newBuilder().setEnabled(true).setMaxLetters(300).setCandidateDistance(12)
                        .setMinJaccard(0.2))
                .build();
        String post = ContentHash.normalise(POST);
        assertEquals(BitMinHash.of(post, PRODUCTS_64), CollectionSettingsRules.shortFingerprintRule(stored).fingerprint(post),
                "stored before the bin order existed: 64-bit products");
        assertNotEquals(BitMinHash.of(post), BitMinHash.partitioned(post));
        assertTrue(CollectionSettingsRules.sameSettings(stored, CollectionSettings.getDefaultInstance()));
        assertFalse(CollectionSettingsRules.sameSettings(stored, CollectionSettings.newBuilder().setShortFingerprint(
                ShortFingerprintSettings.newBuilder().setEnabled(true).setBlocks(ShortFingerprintBlocks.PARTITIONED_BLOCKS)).build()));
        assertTrue(CollectionSettingsRules.sameSettings(CollectionSettingsRules.complete(CollectionSettings.getDefaultInstance()),
                CollectionSettings.newBuilder().setShortFingerprint(ShortFingerprintSettings.newBuilder().setEnabled(true)
                        .setBlocks(ShortFingerprintBlocks.WHOLE_TEXT_BLOCKS)).build()));
    }

    /**
     * New collections order their MinHash bins by 32-bit products; one created asking for 64-bit
     * products fingerprints as collections stored before the order existed do, and a create
     * without settings finds such a stored collection, while one asking for the other order does
     * not. An unknown order is refused.
     */
    @Test
    void binOrder_isFixedPerCollection_andSettingsStoredWithoutItKeep64BitProducts() throws Exception {
        try (TestServer s = new TestServer(dir, Clock.systemUTC())) {
            s.stub().createCollection(CreateCollectionRequest.newBuilder().setName("wide").setSettings(CollectionSettings.newBuilder()
                    .setShortFingerprint(ShortFingerprintSettings.newBuilder().setEnabled(true).setOrder(ShortFingerprintOrder.PRODUCTS_64))).build());
            String post = ContentHash.normalise(POST);
            assertEquals(List.of(BitMinHash.of(post, PRODUCTS_64)), s.stub().fingerprint(FingerprintRequest.newBuilder().setCollection("wide")
                    .addTexts(POST).build()).getFingerprintsList());
            assertEquals(List.of(BitMinHash.of(post, PRODUCTS_32)), s.stub().fingerprint(FingerprintRequest.newBuilder()
                    .addTexts(POST).build()).getFingerprintsList());
            assertNotEquals(BitMinHash.of(post, PRODUCTS_64), BitMinHash.of(post, PRODUCTS_32));
            StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> s.stub().createCollection(CreateCollectionRequest
                    .newBuilder().setName("odd").setSettings(CollectionSettings.newBuilder().setShortFingerprint(
                            ShortFingerprintSettings.newBuilder().setEnabled(true).setOrderValue(9))).build()));
            assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode());
            assertTrue(e.getStatus().getDescription().contains("settings.short_fingerprint.order"), e.getStatus().getDescription());
        }
        CollectionSettings stored = CollectionSettingsRules.complete(CollectionSettings.getDefaultInstance()).toBuilder()
                .setShortFingerprint(CollectionSettingsRules.complete(CollectionSettings.getDefaultInstance()).getShortFingerprint().toBuilder()
                        .clearOrder())
                .build();
        assertTrue(CollectionSettingsRules.sameSettings(stored, CollectionSettings.getDefaultInstance()));
        assertFalse(CollectionSettingsRules.sameSettings(stored, CollectionSettings.newBuilder().setShortFingerprint(
                ShortFingerprintSettings.newBuilder().setEnabled(true).setOrder(ShortFingerprintOrder.PRODUCTS_32)).build()));
        assertFalse(CollectionSettingsRules.sameSettings(CollectionSettingsRules.complete(CollectionSettings.getDefaultInstance()),
                CollectionSettings.newBuilder().setShortFingerprint(ShortFingerprintSettings.newBuilder().setEnabled(true)
                        .setOrder(ShortFingerprintOrder.PRODUCTS_64)).build()));
    }

    @Test
    void sketchDistanceLeftUnset_matchesTheOneACollectionWasStoredWith_anExplicitOtherDoesNot() {
        CollectionSettings storedWithSix = CollectionSettingsRules.complete(CollectionSettings.newBuilder()
                .setSketch(SketchSettings.newBuilder().setEnabled(true).setCandidateDistance(6)).build());
        assertEquals(5, CollectionSettingsRules.complete(CollectionSettings.getDefaultInstance()).getSketch().getCandidateDistance());
        assertTrue(CollectionSettingsRules.sameSettings(storedWithSix, CollectionSettings.getDefaultInstance()));
        assertTrue(CollectionSettingsRules.sameSettings(storedWithSix, CollectionSettings.newBuilder()
                .setSketch(SketchSettings.newBuilder().setEnabled(true).setMinJaccard(0.4)).build()));
        assertFalse(CollectionSettingsRules.sameSettings(storedWithSix, CollectionSettings.newBuilder()
                .setSketch(SketchSettings.newBuilder().setEnabled(true).setCandidateDistance(7)).build()));
        assertFalse(CollectionSettingsRules.sameSettings(storedWithSix, CollectionSettings.newBuilder()
                .setSketch(SketchSettings.newBuilder().setEnabled(false)).build()));
    }

    /**
     * Heavier edits of short posts, queried in the default collection (MinHash candidates kept
     * from an estimate of 0.2) and in one that asks 0.4: every match carries its estimate, each
     * collection keeps exactly what its threshold allows, and the default finds some the other
     * does not.
     */
    @Test
    void minHashCandidates_keptFromTheirOwnThreshold() throws Exception {
        try (TestServer s = new TestServer(dir, Clock.systemUTC())) {
            s.stub().createCollection(CreateCollectionRequest.newBuilder().setName("strict").setSettings(CollectionSettings.newBuilder()
                    .setShortFingerprint(ShortFingerprintSettings.newBuilder().setEnabled(true).setMinJaccard(0.4))).build());
            java.util.Random rnd = new java.util.Random(7);
            String han = "天地人和春夏秋冬山水风云日月星辰江河湖海东南西北上下左右前后高低长短";
            int onlyDefault = 0;
            for (int i = 0; i < 60; i++) {
                String post = POST + i;
                StringBuilder edit = new StringBuilder(post);
                for (int e = 0; e < 4 + i % 4; e++) {
                    edit.setCharAt(rnd.nextInt(POST.length()), han.charAt(rnd.nextInt(han.length())));
                }
                for (String c : List.of("default", "strict")) {
                    s.stub().insert(InsertRequest.newBuilder().setCollection(c).addDocuments(Document.newBuilder().setId("p" + i).setText(post))
                            .build());
                }
                List<String> found = new java.util.ArrayList<>();
                for (String c : List.of("default", "strict")) {
                    double floor = c.equals("default") ? 0.2 : 0.4;
                    for (io.simdex.proto.v1.Match m : query(s, c, edit.toString()).get(0).getMatchesList()) {
                        assertTrue(m.getSimilarity() >= floor - 1e-6 && m.getDistance() <= 12, c + ": " + m);
                        found.add(c + "/" + m.getId());
                    }
                }
                assertFalse(found.contains("strict/p" + i) && !found.contains("default/p" + i), "the lower threshold keeps more: " + found);
                onlyDefault += found.contains("default/p" + i) && !found.contains("strict/p" + i) ? 1 : 0;
            }
            assertTrue(onlyDefault > 0, "some edit is kept only from 0.2");
        }
    }

    /** The README's one-word edit of a 20-word text, and a two-character edit of a Chinese post, by Query and by Dedup. */
    @Test
    void lightEditsOfShortTexts_foundInTheDefaultCollection() throws Exception {
        String councilEdit = COUNCIL.replace("Tuesday", "Wednesday");
        String postEdit = POST.replace("三点", "四点");
        try (TestServer s = new TestServer(dir, Clock.systemUTC())) {
            s.stub().insert(InsertRequest.newBuilder().addDocuments(Document.newBuilder().setId("council").setText(COUNCIL))
                    .addDocuments(Document.newBuilder().setId("post").setText(POST)).build());
            List<QueryResult> found = query(s, "default", councilEdit, postEdit);
            assertEquals("council", found.get(0).getMatches(0).getId());
            assertEquals("post", found.get(1).getMatches(0).getId());
            assertTrue(found.get(1).getMatches(0).getDistance() <= 12);
            DedupResult again = s.stub().dedup(DedupRequest.newBuilder().addDocuments(Document.newBuilder().setId("p2").setText(postEdit))
                    .build()).getResults(0);
            assertFalse(again.getInserted());
            assertEquals("post", again.getDuplicates(0).getId());
        }
    }

    /**
     * A text just over the boundary is stored with its SimHash, one just under with its MinHash
     * fingerprint; each probes with both, so a near copy on the other side is found, by Query
     * and by Dedup, in the store and within one request.
     */
    @Test
    void nearCopiesAcrossTheBoundary_foundByTheSecondProbe() throws Exception {
        String under = letters(290, 1);
        String over = under + " and then some more words here";
        assertTrue(BitMinHash.letters(ContentHash.normalise(under)) <= 300 && BitMinHash.letters(ContentHash.normalise(over)) > 300);
        try (TestServer s = new TestServer(dir, Clock.systemUTC())) {
            s.stub().insert(InsertRequest.newBuilder().addDocuments(Document.newBuilder().setId("under").setText(under)).build());
            QueryResult r = query(s, "default", over).get(0);
            assertEquals("under", r.getMatches(0).getId(), "the longer text's MinHash probe finds the shorter one");
            assertEquals(1, r.getTotalMatches());

            List<DedupResult> stored = s.stub().dedup(DedupRequest.newBuilder()
                    .addDocuments(Document.newBuilder().setId("x-over").setText("x " + over))
                    .addDocuments(Document.newBuilder().setId("x-under").setText("x " + under)).build()).getResultsList();
            assertEquals("under", stored.get(0).getDuplicates(0).getId(), "by its second probe");
            assertEquals("under", stored.get(1).getDuplicates(0).getId());

            // Within one request: the shorter text is kept first, its longer copy finds it by its second probe.
            String under2 = letters(290, 2);
            List<DedupResult> batch = s.stub().dedup(DedupRequest.newBuilder()
                    .addDocuments(Document.newBuilder().setId("y-under").setText(under2))
                    .addDocuments(Document.newBuilder().setId("y-over").setText(under2 + " and then some more words here")).build())
                    .getResultsList();
            assertTrue(batch.get(0).getInserted());
            assertFalse(batch.get(1).getInserted());
            assertEquals("y-under", batch.get(1).getDuplicates(0).getId());
        }
    }

    /**
     * New collections take SimHash candidates to 7 for texts of at most 150 words: a near copy
     * 6 or 7 bits from a 100-word text is found, one as far from a 200-word text is not,
     * and neither is found in a collection that asks for 5 at every length; settings stored
     * before the wide radius existed keep their one distance.
     */
    @Test
    void wideRadius_nearCopiesAtSixOrSevenBits_foundUpTo150Words() throws Exception {
        String mid = letters(600, 3);
        String midCopy = nearCopy(mid, 4);
        String big = letters(1200, 5);
        String bigCopy = nearCopy(big, 6);
        assertTrue(BitMinHash.letters(ContentHash.normalise(midCopy)) > 450, "probes with SimHash only");
        int midWords = WordCount.of(ContentHash.normalise(midCopy));
        assertTrue(midWords <= 150, "within the wide length: " + midWords);
        assertTrue(WordCount.of(ContentHash.normalise(bigCopy)) > 150);
        try (TestServer s = new TestServer(dir, Clock.systemUTC())) {
            CollectionSettings defaults = s.stub().listCollections(ListCollectionsRequest.getDefaultInstance()).getCollections(0).getSettings();
            assertEquals(SketchSettings.newBuilder().setEnabled(true).setMinJaccard(0.4).setCandidateDistance(5).setWideCandidateDistance(7)
                    .setWideMaxWords(150).build(), defaults.getSketch());
            s.stub().createCollection(CreateCollectionRequest.newBuilder().setName("narrow").setSettings(CollectionSettings.newBuilder()
                    .setSketch(SketchSettings.newBuilder().setEnabled(true).setWideCandidateDistance(5))).build());
            for (String c : List.of("default", "narrow")) {
                s.stub().insert(InsertRequest.newBuilder().setCollection(c).addDocuments(Document.newBuilder().setId("mid").setText(mid))
                        .addDocuments(Document.newBuilder().setId("big").setText(big)).build());
            }
            List<QueryResult> found = query(s, "default", midCopy, bigCopy);
            assertEquals(List.of("mid"), found.get(0).getMatchesList().stream().map(m -> m.getId()).toList());
            assertEquals(0, found.get(1).getTotalMatches(), "a text of over 150 words takes candidates to 5");
            for (QueryResult r : query(s, "narrow", midCopy, bigCopy)) {
                assertEquals(0, r.getTotalMatches());
            }
            DedupResult d = s.stub().dedup(DedupRequest.newBuilder().addDocuments(Document.newBuilder().setId("mid-copy").setText(midCopy))
                    .build()).getResults(0);
            assertFalse(d.getInserted());
            assertEquals("mid", d.getDuplicates(0).getId());

            // Within one request: the copy 6 or 7 bits away is decided against the text kept before it.
            String other = letters(600, 7);
            String otherCopy = nearCopy(other, 8);
            List<DedupResult> batch = s.stub().dedup(DedupRequest.newBuilder()
                    .addDocuments(Document.newBuilder().setId("other").setText(other))
                    .addDocuments(Document.newBuilder().setId("other-copy").setText(otherCopy)).build()).getResultsList();
            assertTrue(batch.get(0).getInserted());
            assertFalse(batch.get(1).getInserted());
            assertEquals("other", batch.get(1).getDuplicates(0).getId());
            List<DedupResult> narrow = s.stub().dedup(DedupRequest.newBuilder().setCollection("narrow")
                    .addDocuments(Document.newBuilder().setId("other").setText(other))
                    .addDocuments(Document.newBuilder().setId("other-copy").setText(otherCopy)).build()).getResultsList();
            assertTrue(narrow.get(0).getInserted() && narrow.get(1).getInserted(), "at 5 the copy is not a candidate");
        }
        CollectionSettings stored = CollectionSettingsRules.complete(CollectionSettings.getDefaultInstance()).toBuilder()
                .setSketch(SketchSettings.newBuilder().setEnabled(true).setMinJaccard(0.4).setCandidateDistance(5)).build();
        assertNull(CollectionSettingsRules.wideSketchRule(stored));
        assertEquals(7, CollectionSettingsRules.wideSketchRule(CollectionSettingsRules.complete(CollectionSettings.getDefaultInstance()))
                .candidateDistance());
        assertTrue(CollectionSettingsRules.sameSettings(stored, CollectionSettings.getDefaultInstance()),
                "a create without settings finds the collection stored before the field existed");
        assertFalse(CollectionSettingsRules.sameSettings(stored, CollectionSettings.newBuilder()
                .setSketch(SketchSettings.newBuilder().setEnabled(true).setWideMaxWords(100)).build()));
    }

    @Test
    void badWideSketchSettings_invalidArgument() throws Exception {
        try (TestServer s = new TestServer(dir, Clock.systemUTC())) {
            SketchSettings.Builder on = SketchSettings.newBuilder().setEnabled(true);
            assertInvalid(s, CollectionSettings.newBuilder().setSketch(on.clone().setWideCandidateDistance(8)),
                    "settings.sketch.wide_candidate_distance 8 outside 0..7");
            assertInvalid(s, CollectionSettings.newBuilder().setSketch(on.clone().setWideMaxWords(100_001)),
                    "settings.sketch.wide_max_words 100001 outside 0..100000");
            assertEquals(1, s.stub().listCollections(ListCollectionsRequest.getDefaultInstance()).getCollectionsCount(), "only the default");
        }
    }

    /**
     * A deleted text's sketch goes with it: a document given later with the same fingerprint and
     * no text has nothing stored, so a near copy of the deleted text 6-7 bits away, found as the
     * text's duplicate before the Delete, is not the new document's.
     */
    @Test
    void delete_dropsTheTextsSketch_aDocumentGivenItsFingerprintAloneIsNotJudgedByIt() throws Exception {
        try (TestServer s = new TestServer(dir, Clock.systemUTC())) {
            String text = (COUNCIL + " ").repeat(5).strip();
            String near = nearCopy(text, 3);
            long fp = TextFingerprinter.of(TextSettings.recommended()).fingerprint(text);
            s.stub().insert(InsertRequest.newBuilder().addDocuments(Document.newBuilder().setId("a").setText(text)).build());
            assertEquals("a", query(s, "", near).get(0).getMatches(0).getId(), "the near copy before the Delete");
            assertEquals(1, s.stub().delete(DeleteRequest.newBuilder().addIds("a").build()).getDeleted());
            s.stub().insert(InsertRequest.newBuilder().addDocuments(Document.newBuilder().setId("fp").setFingerprint(fp)).build());
            assertEquals(0, query(s, "", near).get(0).getMatchesCount(), "6-7 bits from a document with nothing stored");
            assertEquals("fp", query(s, "", text).get(0).getMatches(0).getId(), "the text itself, at distance 0");
        }
    }

    /**
     * {@code text} with words replaced by made-up ones until its SimHash is 6 or 7 bits away and
     * its sketch still estimates at least 0.6: the first such copy of a seeded search.
     */
    private static String nearCopy(String text, int seed) {
        TextFingerprinter simHash = TextFingerprinter.of(TextSettings.recommended());
        long fp = simHash.fingerprint(text);
        MinHashSketch sketch = Sketcher.DEFAULT.sketch(ContentHash.normalise(text));
        java.util.Random rnd = new java.util.Random(seed);
        for (int attempt = 0; attempt < 1000; attempt++) {
            String[] words = text.split(" ");
            for (int edits = 0; edits < 10; edits++) {
                words[rnd.nextInt(words.length)] = letters(8, rnd.nextInt());
                String copy = String.join(" ", words);
                int d = Long.bitCount(fp ^ simHash.fingerprint(copy));
                if (d > 7) {
                    break;
                }
                if (d >= 6 && sketch.estimate(Sketcher.DEFAULT.sketch(ContentHash.normalise(copy))) >= 0.6) {
                    return copy;
                }
            }
        }
        throw new AssertionError("no copy 6 or 7 bits away");
    }

    /** About {@code n} letters of words made up from {@code seed}: texts of different seeds share few letter pairs. */
    private static String letters(int n, int seed) {
        java.util.Random rnd = new java.util.Random(seed);
        StringBuilder b = new StringBuilder();
        for (int count = 0; count < n - 8; ) {
            int length = 4 + rnd.nextInt(5);
            b.append(b.length() == 0 ? "" : " ");
            for (int i = 0; i < length; i++) {
                b.append((char) ('a' + rnd.nextInt(26)));
            }
            count += length;
        }
        return b.toString();
    }

    private static List<QueryResult> query(TestServer s, String collection, String... texts) {
        QueryRequest.Builder q = QueryRequest.newBuilder().setCollection(collection);
        for (String t : texts) {
            q.addProbes(Probe.newBuilder().setText(t));
        }
        return s.stub().query(q.build()).getResultsList();
    }

    private static void assertInvalid(TestServer s, CollectionSettings.Builder settings, String message) {
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> s.stub().createCollection(
                CreateCollectionRequest.newBuilder().setName("bad").setSettings(settings).build()));
        assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode());
        assertTrue(e.getStatus().getDescription().contains(message), e.getStatus().getDescription());
    }
}
