package io.simdex.router.api;

import com.google.protobuf.UInt32Value;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.simdex.proto.v1.CollectionInfo;
import io.simdex.proto.v1.CollectionSettings;
import io.simdex.proto.v1.SketchSettings;
import io.simdex.proto.v1.CreateCollectionRequest;
import io.simdex.proto.v1.DedupRequest;
import io.simdex.proto.v1.DeleteCollectionRequest;
import io.simdex.proto.v1.DedupResponse;
import io.simdex.proto.v1.FingerprintRequest;
import io.simdex.proto.v1.InsertRequest;
import io.simdex.proto.v1.ListCollectionsRequest;
import io.simdex.proto.v1.Probe;
import io.simdex.proto.v1.QueryRequest;
import io.simdex.proto.v1.StatsRequest;
import io.simdex.proto.v1.Tokenization;
import io.simdex.proto.v1.Weighting;
import io.simdex.core.text.HanTokens;
import io.simdex.core.text.IdfTable;
import io.simdex.core.text.TextFingerprinter;
import io.simdex.core.text.TextSettings;
import io.simdex.router.ManualClock;
import io.simdex.router.TestServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import static io.simdex.router.Calls.doc;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Collections with their own settings, persisted; retention windows driven by a controllable clock. */
class CollectionsTest {
    @TempDir
    Path dir;

    @Test
    void createCollection_settingsPersistAndReopen_andConflictingSettingsRejected() throws Exception {
        CollectionSettings ngrams = CollectionSettings.newBuilder().setTokenization(Tokenization.CHAR_NGRAMS).setNgramSize(2)
                .setMaxDistance(UInt32Value.of(2)).setRetentionSeconds(172_800).build();
        try (TestServer s = new TestServer(dir, Clock.systemUTC())) {
            CollectionInfo created = s.stub().createCollection(CreateCollectionRequest.newBuilder().setName("news").setSettings(ngrams).build()).getCollection();
            assertEquals(21_600, created.getSettings().getGenerationSeconds(), "default generation: retention / 8");
            assertEquals(Weighting.TF, created.getSettings().getWeighting(), "defaults are filled in");
            assertEquals(SketchSettings.newBuilder().setEnabled(true).setMinJaccard(0.4).setCandidateDistance(5)
                            .setWideCandidateDistance(7).setWideMaxWords(150).build(),
                    created.getSettings().getSketch(), "sketches are on unless turned off, with their defaults");
            CollectionInfo sketched = s.stub().createCollection(CreateCollectionRequest.newBuilder().setName("sketched").setSettings(
                    CollectionSettings.newBuilder().setSketch(SketchSettings.newBuilder().setEnabled(true))).build()).getCollection();
            assertEquals(SketchSettings.newBuilder().setEnabled(true).setMinJaccard(0.4).setCandidateDistance(5)
                            .setWideCandidateDistance(7).setWideMaxWords(150).build(),
                    sketched.getSettings().getSketch(), "the sketch defaults are filled in");
            CollectionInfo plain = s.stub().createCollection(CreateCollectionRequest.newBuilder().setName("plain").setSettings(
                    CollectionSettings.newBuilder().setSketch(SketchSettings.newBuilder().setEnabled(false))).build()).getCollection();
            assertEquals(SketchSettings.newBuilder().setEnabled(false).build(), plain.getSettings().getSketch(), "off when asked");
            assertFalse(s.stub().createCollection(CreateCollectionRequest.newBuilder().setName("news").setSettings(ngrams).build()).getCreated());
            StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> s.stub().createCollection(
                    CreateCollectionRequest.newBuilder().setName("news").build()));
            assertEquals(Status.Code.ALREADY_EXISTS, e.getStatus().getCode());
        }
        try (TestServer s = new TestServer(dir, Clock.systemUTC())) {
            List<CollectionInfo> all = s.stub().listCollections(ListCollectionsRequest.getDefaultInstance()).getCollectionsList();
            assertEquals(List.of("default", "news", "plain", "sketched"), all.stream().map(CollectionInfo::getName).toList());
            CollectionInfo news = all.get(1);
            assertEquals(Tokenization.CHAR_NGRAMS, news.getSettings().getTokenization());
            assertEquals(2, news.getSettings().getNgramSize());
            assertEquals(2, news.getSettings().getMaxDistance().getValue());
        }
    }

    @Test
    void createCollection_badSettings_invalidArgumentAndNothingCreated() throws Exception {
        try (TestServer s = new TestServer(dir, Clock.systemUTC())) {
            for (CollectionSettings bad : List.of(
                    CollectionSettings.newBuilder().setMaxDistance(UInt32Value.of(4)).build(),
                    CollectionSettings.newBuilder().setNgramSize(17).build(),
                    CollectionSettings.newBuilder().setGenerationSeconds(60).build(),
                    CollectionSettings.newBuilder().setRetentionSeconds(60).setGenerationSeconds(120).build(),
                    CollectionSettings.newBuilder().putIdf("river", 2.0).build(),
                    CollectionSettings.newBuilder().setWeighting(Weighting.TF_IDF).putIdf("river", -1).build(),
                    CollectionSettings.newBuilder().setSketch(SketchSettings.newBuilder().setEnabled(true).setMinJaccard(1.5)).build(),
                    CollectionSettings.newBuilder().setSketch(SketchSettings.newBuilder().setEnabled(true).setCandidateDistance(8)).build())) {
                StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> s.stub().createCollection(
                        CreateCollectionRequest.newBuilder().setName("bad").setSettings(bad).build()));
                assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode(), bad.toString());
                assertTrue(e.getStatus().getDescription().startsWith("settings"), e.getStatus().getDescription());
            }
            assertEquals(1, s.stub().listCollections(ListCollectionsRequest.getDefaultInstance()).getCollectionsCount());
        }
    }

    @Test
    void createCollection_retentionOverTenThousandGenerations_invalidArgumentWithTheNumbers() throws Exception {
        try (TestServer s = new TestServer(dir, Clock.systemUTC())) {
            StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> s.stub().createCollection(CreateCollectionRequest.newBuilder()
                    .setName("huge").setSettings(CollectionSettings.newBuilder().setRetentionSeconds(1_000_000_000).setGenerationSeconds(1)).build()));
            assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode());
            assertEquals("settings.retention_seconds 1000000000 in generations of 1 s makes 1000000000 generations, more than 10000;"
                    + " give generation_seconds >= 100000", e.getStatus().getDescription());
            assertEquals(Status.Code.INVALID_ARGUMENT, assertThrows(StatusRuntimeException.class, () -> s.stub().createCollection(
                    CreateCollectionRequest.newBuilder().setName("forever").setSettings(CollectionSettings.newBuilder()
                            .setRetentionSeconds(Long.MAX_VALUE)).build())).getStatus().getCode());
            // 10,000 generations exactly is allowed.
            assertTrue(s.stub().createCollection(CreateCollectionRequest.newBuilder().setName("edge").setSettings(CollectionSettings.newBuilder()
                    .setRetentionSeconds(10_000).setGenerationSeconds(1)).build()).getCreated());
        }
    }

    @Test
    void storedCollectionOverTheGenerationLimit_failedPreconditionForIt_sweepsServeTheOthers() throws Exception {
        ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
        CollectionSettings daily = CollectionSettings.newBuilder().setRetentionSeconds(86_400).setGenerationSeconds(3_600).build();
        try (TestServer s = new TestServer(dir, clock)) {
            s.stub().createCollection(CreateCollectionRequest.newBuilder().setName("daily").setSettings(daily).build());
            s.stub().insert(InsertRequest.newBuilder().setCollection("daily").addDocuments(doc("old", 42L)).build());
        }
        // An entry written before the limit existed.
        Path catalog = dir.resolve("router").resolve("collections.json");
        String bad = "{\"name\": \"huge\", \"settings\": {\"retentionSeconds\": \"1000000000\", \"generationSeconds\": \"1\"}}";
        Files.writeString(catalog, Files.readString(catalog).replaceFirst("\\[", "[" + java.util.regex.Matcher.quoteReplacement(bad) + ","));
        try (TestServer s = new TestServer(dir, clock)) {
            StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> s.stub().insert(
                    InsertRequest.newBuilder().setCollection("huge").addDocuments(doc("x", 1L)).build()));
            assertEquals(Status.Code.FAILED_PRECONDITION, e.getStatus().getCode());
            assertTrue(e.getStatus().getDescription().contains("1000000000 generations"), e.getStatus().getDescription());
            clock.advance(Duration.ofDays(2));
            assertTrue(s.simdex.service().prepareGenerations(Set.of("daily")) > 0, "daily's next generations are still prepared");
            assertTrue(s.simdex.service().sweepExpired() > 0, "daily's old generation is still swept");
        }
    }

    @Test
    void deleteCollection_dropsItsDocumentsOnEveryShard_andItCanBeMadeAgain() throws Exception {
        try (TestServer s = new TestServer(dir, Clock.systemUTC())) {
            s.stub().createCollection(CreateCollectionRequest.newBuilder().setName("gone").build());
            s.stub().insert(InsertRequest.newBuilder().setCollection("gone").addDocuments(doc("a", 1L)).addDocuments(doc("b", -1L)).build());
            s.stub().insert(InsertRequest.newBuilder().addDocuments(doc("kept", 1L)).build());
            assertTrue(s.stub().deleteCollection(DeleteCollectionRequest.newBuilder().setName("gone").build()).getExisted());
            StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> s.stub().stats(StatsRequest.newBuilder().setCollection("gone").build()));
            assertEquals(Status.Code.NOT_FOUND, e.getStatus().getCode());
            assertFalse(s.stub().deleteCollection(DeleteCollectionRequest.newBuilder().setName("gone").build()).getExisted(), "idempotent");
            assertEquals(Status.Code.INVALID_ARGUMENT, assertThrows(StatusRuntimeException.class, () -> s.stub().deleteCollection(
                    DeleteCollectionRequest.newBuilder().setName("default").build())).getStatus().getCode());
            assertEquals(Status.Code.INVALID_ARGUMENT, assertThrows(StatusRuntimeException.class, () -> s.stub().deleteCollection(
                    DeleteCollectionRequest.newBuilder().setName("../x").build())).getStatus().getCode());

            s.stub().createCollection(CreateCollectionRequest.newBuilder().setName("gone").setSettings(CollectionSettings.newBuilder()
                    .setMaxDistance(UInt32Value.of(1))).build());
            assertEquals(0, s.stub().stats(StatsRequest.newBuilder().setCollection("gone").build()).getDocuments());
            assertEquals(0, s.stub().query(QueryRequest.newBuilder().setCollection("gone").addProbes(Probe.newBuilder().setFingerprint(1L)).build())
                    .getResults(0).getMatchesCount());
            assertEquals(1, s.stub().stats(StatsRequest.getDefaultInstance()).getDocuments(), "other collections untouched");
        }
    }

    /** The built-in idf table weighs a collection's SimHash, entries given replace its own, and it needs the table's features. */
    @Test
    void builtInIdf_weighsByTheBuiltInTable_withGivenEntriesOnTop() throws Exception {
        // Longer than 300 letters: SimHash, which weighting shapes (shorter texts get a MinHash fingerprint).
        String text = "The harbour authority closed the northern quay after the storm damaged its cranes; 港口管理局关闭了北码头. ".repeat(5);
        TextSettings features = new TextSettings(io.simdex.core.text.Tokenization.WORDS, io.simdex.core.text.Weighting.TF_IDF, 1, false,
                HanTokens.CHARACTERS);
        long expected = TextFingerprinter.of(features, IdfTable.builtIn()).fingerprint(text);
        long expectedGiven = TextFingerprinter.of(features, IdfTable.builtIn().with(java.util.Map.of("harbour", 9.0, "港", 0.0))).fingerprint(text);
        try (TestServer s = new TestServer(dir, Clock.systemUTC())) {
            s.stub().createCollection(CreateCollectionRequest.newBuilder().setName("idf").setSettings(
                    CollectionSettings.newBuilder().setWeighting(Weighting.TF_IDF).setBuiltInIdf(true)).build());
            s.stub().createCollection(CreateCollectionRequest.newBuilder().setName("given").setSettings(
                    CollectionSettings.newBuilder().setWeighting(Weighting.TF_IDF).setBuiltInIdf(true).putIdf("harbour", 9.0).putIdf("港", 0.0)).build());
            long tf = s.stub().fingerprint(FingerprintRequest.newBuilder().addTexts(text).build()).getFingerprints(0);
            assertEquals(expected, s.stub().fingerprint(FingerprintRequest.newBuilder().setCollection("idf").addTexts(text).build()).getFingerprints(0));
            assertEquals(expectedGiven, s.stub().fingerprint(FingerprintRequest.newBuilder().setCollection("given").addTexts(text).build()).getFingerprints(0));
            assertNotEquals(tf, expected);
            assertNotEquals(expected, expectedGiven);

            for (CollectionSettings bad : List.of(
                    CollectionSettings.newBuilder().setBuiltInIdf(true).build(),
                    CollectionSettings.newBuilder().setBuiltInIdf(true).setWeighting(Weighting.TF_IDF).setTokenization(Tokenization.CHAR_NGRAMS).build(),
                    CollectionSettings.newBuilder().setBuiltInIdf(true).setWeighting(Weighting.TF_IDF)
                            .setHanTokens(io.simdex.proto.v1.HanTokens.HANLP_WORDS).build())) {
                StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> s.stub().createCollection(
                        CreateCollectionRequest.newBuilder().setName("bad").setSettings(bad).build()));
                assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode(), bad.toString());
                assertTrue(e.getStatus().getDescription().startsWith("settings.built_in_idf needs"), e.getStatus().getDescription());
            }
        }
        try (TestServer s = new TestServer(dir, Clock.systemUTC())) {
            assertEquals(expected, s.stub().fingerprint(FingerprintRequest.newBuilder().setCollection("idf").addTexts(text).build()).getFingerprints(0),
                    "the setting is kept with the collection");
        }
    }

    @Test
    void collectionSettings_tokenizationAndDefaultDistanceApply() throws Exception {
        try (TestServer s = new TestServer(dir, Clock.systemUTC())) {
            s.stub().createCollection(CreateCollectionRequest.newBuilder().setName("grams").setSettings(
                    CollectionSettings.newBuilder().setTokenization(Tokenization.CHAR_NGRAMS).setMaxDistance(UInt32Value.of(0))).build());
            // Longer than 300 letters: SimHash, which the tokenization shapes (shorter texts get a MinHash fingerprint).
            String text = "The city council voted on Tuesday to restore the wetlands along the river. ".repeat(6);
            long words = s.stub().fingerprint(FingerprintRequest.newBuilder().addTexts(text).build()).getFingerprints(0);
            long grams = s.stub().fingerprint(FingerprintRequest.newBuilder().setCollection("grams").addTexts(text).build()).getFingerprints(0);
            assertNotEquals(words, grams, "each collection fingerprints with its own tokenization");

            s.stub().insert(InsertRequest.newBuilder().setCollection("grams").addDocuments(doc("a", 0xF0L)).build());
            // The collection's max_distance (0) applies when the request gives none; an explicit 3 overrides it.
            QueryRequest.Builder q = QueryRequest.newBuilder().setCollection("grams").addProbes(Probe.newBuilder().setFingerprint(0xF1L));
            assertEquals(0, s.stub().query(q.build()).getResults(0).getMatchesCount());
            assertEquals(1, s.stub().query(q.setMaxDistance(UInt32Value.of(3)).build()).getResults(0).getMatchesCount());
        }
    }

    @Test
    void retention_entriesExpireWithTheirGeneration_andDiskIsReturned() throws Exception {
        ManualClock clock = new ManualClock(Instant.parse("2026-11-22T00:00:00Z"));
        try (TestServer s = new TestServer(dir, clock)) {
            // Keep 2 days in generations of 6 hours.
            s.stub().createCollection(CreateCollectionRequest.newBuilder().setName("window").setSettings(
                    CollectionSettings.newBuilder().setRetentionSeconds(172_800).setGenerationSeconds(21_600)).build());
            s.stub().insert(InsertRequest.newBuilder().setCollection("window").addDocuments(doc("day0", 0x1111L)).build());
            clock.advance(Duration.ofHours(25));
            s.stub().insert(InsertRequest.newBuilder().setCollection("window").addDocuments(doc("day1", 0x2222L)).build());
            assertEquals(List.of("day0", "day1"), ids(s, "window", 0x1111L, 0x2222L));

            // 48 h after day0's generation ended, it leaves the window: never found again, not a duplicate any more.
            clock.advance(Duration.ofHours(23).plusMinutes(1));
            assertEquals(List.of("day0", "day1"), ids(s, "window", 0x1111L, 0x2222L), "48 h after day0, its generation (ended 42 h ago) is still within 2 days");
            clock.advance(Duration.ofHours(6));
            assertEquals(List.of("day1"), ids(s, "window", 0x1111L, 0x2222L), "day0's generation ended more than 48 h ago");
            DedupResponse d = s.stub().dedup(DedupRequest.newBuilder().setCollection("window").addDocuments(doc("again", 0x1111L)).build());
            assertTrue(d.getResults(0).getInserted(), "an expired document is no duplicate");
            assertEquals(2, s.stub().stats(StatsRequest.newBuilder().setCollection("window").build()).getDocuments());

            // The sweep deletes expired generations' files.
            long generationsBefore = generationDirs();
            assertTrue(s.simdex.service().sweepExpired() > 0);
            assertTrue(generationDirs() < generationsBefore, "expired generation directories are deleted");
            assertEquals(List.of("again", "day1"), ids(s, "window", 0x1111L, 0x2222L));

            // Re-inserting an id moves it to the current generation: it lives on with it.
            s.stub().insert(InsertRequest.newBuilder().setCollection("window").addDocuments(doc("day1", 0x2222L)).build());
            clock.advance(Duration.ofHours(30));
            assertEquals(List.of("day1"), ids(s, "window", 0x2222L));
        }
    }

    /**
     * CreateCollection makes the current generation's stores on every shard, and the stores of a
     * new generation exist on every shard before the generation starts (within the lead), so
     * first writes do not wait for files; documents then land in them.
     */
    @Test
    void prepareGenerations_createsTheNextGenerationsStoresAheadOfItsStart() throws Exception {
        Instant start = Instant.parse("2026-11-22T00:00:00Z");
        ManualClock clock = new ManualClock(start);
        try (TestServer s = new TestServer(dir, clock)) {
            CollectionSettings twoDays = CollectionSettings.newBuilder().setRetentionSeconds(172_800).setGenerationSeconds(21_600).build();
            s.stub().createCollection(CreateCollectionRequest.newBuilder().setName("window").setSettings(twoDays).build());
            s.stub().createCollection(CreateCollectionRequest.newBuilder().setName("eager").setSettings(twoDays).build());
            long current = start.getEpochSecond() / 21_600;
            assertTrue(storesOnEveryShard("window", current), "CreateCollection makes the current generation's stores");

            clock.advance(Duration.ofHours(5).plusMinutes(50));
            s.simdex.service().prepareGenerations(Set.of("eager"));
            assertTrue(storesOnEveryShard("eager", current));
            InsertRequest.Builder some = InsertRequest.newBuilder().setCollection("window");
            for (int i = 0; i < 20; i++) {
                some.addDocuments(doc("w" + i, 0x9E3779B97F4A7C15L * (i + 1)));
            }
            s.stub().insert(some.build());
            assertTrue(storesOnEveryShard("window", current));

            s.simdex.service().prepareGenerations(Set.of());
            assertFalse(storesOnAnyShard("window", current + 1), "10 minutes ahead is before the 5-minute lead");

            clock.advance(Duration.ofMinutes(6));
            s.simdex.service().prepareGenerations(Set.of());
            assertTrue(storesOnEveryShard("window", current + 1), "4 minutes ahead: the next generation is prepared");
            assertTrue(storesOnEveryShard("eager", current + 1), "a collection with stores is in use");
            assertEquals(0, s.simdex.service().prepareGenerations(Set.of()), "nothing left to create");

            clock.advance(Duration.ofMinutes(5));
            s.stub().insert(InsertRequest.newBuilder().setCollection("window").addDocuments(doc("next", 0x3333L)).build());
            assertEquals(List.of("next"), ids(s, "window", 0x3333L));
            assertFalse(storesOnAnyShard("window", current + 2));
        }
    }

    /** A collection whose every generation expired holds no store: the sweeps make none for it, unless asked to even if unused. */
    @Test
    void prepareGenerations_collectionWhoseStoresExpired_getsNoNewFilesUnlessEvenIfUnused() throws Exception {
        Instant start = Instant.parse("2026-11-22T00:00:00Z");
        ManualClock clock = new ManualClock(start);
        try (TestServer s = new TestServer(dir, clock)) {
            CollectionSettings twoDays = CollectionSettings.newBuilder().setRetentionSeconds(172_800).setGenerationSeconds(21_600).build();
            s.stub().createCollection(CreateCollectionRequest.newBuilder().setName("idle").setSettings(twoDays).build());
            long created = start.getEpochSecond() / 21_600;
            assertTrue(storesOnEveryShard("idle", created));

            clock.advance(Duration.ofDays(3));
            long current = clock.instant().getEpochSecond() / 21_600;
            assertTrue(s.simdex.service().sweepExpired() > 0);
            assertFalse(storesOnAnyShard("idle", created), "expired with its generation");
            s.simdex.service().prepareGenerations(Set.of());
            assertFalse(storesOnAnyShard("idle", current), "a collection that holds no store gets none from the sweep");
            s.simdex.service().prepareGenerations(Set.of("idle"));
            assertTrue(storesOnEveryShard("idle", current), "unless it is prepared even if unused");
        }
    }

    @Test
    void prepareLead_fiveMinutesAtMost_halfAGenerationAtMost() {
        assertEquals(Duration.ofMinutes(5), SimdexService.prepareLead(Duration.ofHours(6)));
        assertEquals(Duration.ofSeconds(30), SimdexService.prepareLead(Duration.ofMinutes(1)));
    }

    private boolean storesOnEveryShard(String collection, long generation) {
        return shardsWithStore(collection, generation) == 2;
    }

    private boolean storesOnAnyShard(String collection, long generation) {
        return shardsWithStore(collection, generation) > 0;
    }

    /** Of the test server's two shards, how many hold a directory for the generation. */
    private long shardsWithStore(String collection, long generation) {
        return java.util.stream.IntStream.range(0, 2)
                .filter(s -> Files.isDirectory(dir.resolve("shard-" + s).resolve(collection).resolve("g-" + generation))).count();
    }

    private long generationDirs() throws Exception {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(p -> p.getFileName().toString().startsWith("g-") && p.getParent().getFileName().toString().equals("window")).count();
        }
    }

    private static List<String> ids(TestServer s, String collection, long... fps) {
        QueryRequest.Builder q = QueryRequest.newBuilder().setCollection(collection).setMaxDistance(UInt32Value.of(0));
        for (long fp : fps) {
            q.addProbes(Probe.newBuilder().setFingerprint(fp));
        }
        return s.stub().query(q.build()).getResultsList().stream().flatMap(r -> r.getMatchesList().stream())
                .map(io.simdex.proto.v1.Match::getId).sorted().toList();
    }
}
