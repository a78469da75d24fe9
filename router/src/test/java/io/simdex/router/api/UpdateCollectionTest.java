package io.simdex.router.api;

import com.google.protobuf.DoubleValue;
import com.google.protobuf.UInt32Value;
import com.google.protobuf.UInt64Value;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.simdex.proto.v1.CollectionInfo;
import io.simdex.proto.v1.CollectionSettings;
import io.simdex.proto.v1.CreateCollectionRequest;
import io.simdex.proto.v1.InsertRequest;
import io.simdex.proto.v1.ListCollectionsRequest;
import io.simdex.proto.v1.Probe;
import io.simdex.proto.v1.QueryRequest;
import io.simdex.proto.v1.ShortTextSettings;
import io.simdex.proto.v1.SketchSettings;
import io.simdex.proto.v1.UpdateCollectionRequest;
import io.simdex.proto.v1.UpdateCollectionResponse;
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
import java.util.stream.Stream;

import static io.simdex.router.Calls.doc;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** UpdateCollection over gRPC: what each setting changes, what is refused, and that a refusal changes nothing. */
class UpdateCollectionTest {
    private static final long DAY = 86_400;
    private static final long HOURS_6 = 21_600;

    @TempDir
    Path dir;

    @Test
    void retention_shortenedHidesAndSweepsWhatLeftTheWindow_lengthenedKeepsTheRestLonger_keptAcrossARestart() throws Exception {
        ManualClock clock = new ManualClock(Instant.parse("2026-11-22T00:00:00Z"));
        try (TestServer s = new TestServer(dir, clock)) {
            s.stub().createCollection(CreateCollectionRequest.newBuilder().setName("window").setSettings(
                    CollectionSettings.newBuilder().setRetentionSeconds(2 * DAY).setGenerationSeconds(HOURS_6)).build());
            s.stub().insert(InsertRequest.newBuilder().setCollection("window").addDocuments(doc("old", 0x1111L)).build());
            clock.advance(Duration.ofHours(31)); // old's generation ended 25 h ago
            s.stub().insert(InsertRequest.newBuilder().setCollection("window").addDocuments(doc("new", 0x2222L)).build());
            assertEquals(List.of("new", "old"), ids(s, 0x1111L, 0x2222L));

            UpdateCollectionResponse one = update(s, UpdateCollectionRequest.newBuilder().setRetentionSeconds(UInt64Value.of(DAY)));
            assertTrue(one.getChanged());
            assertEquals(DAY, one.getCollection().getSettings().getRetentionSeconds());
            assertEquals(HOURS_6, one.getCollection().getSettings().getGenerationSeconds(), "generations stay as created");
            assertEquals(List.of("new"), ids(s, 0x1111L, 0x2222L), "old's generation left the one-day window at once");
            long before = generationDirs();
            assertTrue(s.simdex.service().sweepExpired() > 0);
            assertTrue(generationDirs() < before, "the sweep deleted the generation that left the window");

            assertTrue(update(s, UpdateCollectionRequest.newBuilder().setRetentionSeconds(UInt64Value.of(3 * DAY))).getChanged());
            assertEquals(List.of("new"), ids(s, 0x1111L, 0x2222L), "a dropped generation does not come back");
            clock.advance(Duration.ofHours(40));
            assertEquals(List.of("new"), ids(s, 0x2222L), "kept past one day and two: the window is three");
        }
        try (TestServer s = new TestServer(dir, clock)) {
            CollectionInfo window = s.stub().listCollections(ListCollectionsRequest.getDefaultInstance()).getCollectionsList().stream()
                    .filter(c -> c.getName().equals("window")).findFirst().orElseThrow();
            assertEquals(3 * DAY, window.getSettings().getRetentionSeconds(), "the change is in the catalog file");
            assertEquals(List.of("new"), ids(s, 0x2222L));
        }
    }

    @Test
    void maxDistance_isTheDistanceOfRequestsThatGiveNone_andTheSameValueAgainChangesNothing() throws Exception {
        try (TestServer s = new TestServer(dir, Clock.systemUTC())) {
            s.stub().insert(InsertRequest.newBuilder().addDocuments(doc("a", 0xF0L)).build());
            QueryRequest.Builder q = QueryRequest.newBuilder().addProbes(Probe.newBuilder().setFingerprint(0xF1L));
            assertEquals(1, s.stub().query(q.build()).getResults(0).getMatchesCount(), "the default collection's 3");

            UpdateCollectionRequest.Builder zero = UpdateCollectionRequest.newBuilder().setName("default").setMaxDistance(UInt32Value.of(0));
            assertTrue(s.stub().updateCollection(zero.build()).getChanged());
            assertEquals(0, s.stub().query(q.build()).getResults(0).getMatchesCount());
            assertEquals(1, s.stub().query(q.setMaxDistance(UInt32Value.of(1)).build()).getResults(0).getMatchesCount(),
                    "a request's own distance still wins");
            UpdateCollectionResponse again = s.stub().updateCollection(zero.build());
            assertFalse(again.getChanged());
            assertEquals(0, again.getCollection().getSettings().getMaxDistance().getValue());
        }
    }

    /**
     * A near-duplicate text counts while its sketch estimate reaches the threshold: raising
     * the threshold to 1 leaves only the same text; lowering it again finds the edited copy.
     */
    @Test
    void thresholds_decideWhichCandidatesCount_forSimHashAndMinHashProbes() throws Exception {
        String longText = "The city council voted on Tuesday to restore the wetlands along the river, after a long debate"
                + " about the cost of the project and the habitats of the birds that nest there every spring. The mayor said"
                + " that the work would start next year and take about three years, paid for by the state and by a bond."
                + " Residents who live near the water asked how the flooding of their streets would be handled during the"
                + " construction, and the engineers promised a detailed plan before the first machines arrive in the valley.";
        String longEdited = longText.replace("Tuesday", "Wednesday");
        String shortText = "The city council voted on Tuesday to restore the wetlands along the river";
        String shortEdited = shortText.replace("Tuesday", "Wednesday");
        try (TestServer s = new TestServer(dir, Clock.systemUTC())) {
            s.stub().insert(InsertRequest.newBuilder().addDocuments(textDoc("long", longText)).addDocuments(textDoc("short", shortText)).build());
            assertEquals(List.of("long"), textIds(s, longEdited));
            assertEquals(List.of("short"), textIds(s, shortEdited));

            update(s, UpdateCollectionRequest.newBuilder().setName("default").setSketchMinJaccard(DoubleValue.of(1)));
            assertEquals(List.of(), textIds(s, longEdited), "a SimHash probe's candidates take sketch_min_jaccard");
            assertEquals(List.of("long"), textIds(s, longText));
            assertEquals(List.of("short"), textIds(s, shortEdited), "a MinHash probe's candidates keep their own threshold");

            update(s, UpdateCollectionRequest.newBuilder().setName("default").setShortFingerprintMinJaccard(DoubleValue.of(1)));
            assertEquals(List.of(), textIds(s, shortEdited));
            assertEquals(List.of("short"), textIds(s, shortText));

            UpdateCollectionResponse back = update(s, UpdateCollectionRequest.newBuilder().setName("default")
                    .setSketchMinJaccard(DoubleValue.of(0.4)).setShortFingerprintMinJaccard(DoubleValue.of(0.2)));
            assertEquals(CollectionSettingsRules.complete(CollectionSettings.getDefaultInstance()), back.getCollection().getSettings(),
                    "back to the defaults");
            assertEquals(List.of("long"), textIds(s, longEdited));
            assertEquals(List.of("short"), textIds(s, shortEdited));
        }
    }

    @Test
    void shortTextThreshold_decidesWhichShortTextsCount() throws Exception {
        String text = "The city council voted on Tuesday to restore the wetlands along the river";
        String edited = text.replace("Tuesday", "Wednesday");
        try (TestServer s = new TestServer(dir, Clock.systemUTC())) {
            s.stub().createCollection(CreateCollectionRequest.newBuilder().setName("posts").setSettings(CollectionSettings.newBuilder()
                    .setShortText(ShortTextSettings.newBuilder().setEnabled(true)).setSketch(SketchSettings.newBuilder().setEnabled(false))).build());
            s.stub().insert(InsertRequest.newBuilder().setCollection("posts").addDocuments(textDoc("p", text)).build());
            assertEquals(List.of("p"), textIds(s, "posts", edited));
            update(s, UpdateCollectionRequest.newBuilder().setName("posts").setShortTextMinJaccard(DoubleValue.of(1)));
            assertEquals(List.of(), textIds(s, "posts", edited));
            assertEquals(List.of("p"), textIds(s, "posts", text));
        }
    }

    @Test
    void refusals_areInvalidArgumentOrNotFound_namingTheField_andChangeNothing() throws Exception {
        try (TestServer s = new TestServer(dir, Clock.systemUTC())) {
            s.stub().createCollection(CreateCollectionRequest.newBuilder().setName("window").setSettings(
                    CollectionSettings.newBuilder().setRetentionSeconds(2 * DAY).setGenerationSeconds(HOURS_6)).build());
            s.stub().createCollection(CreateCollectionRequest.newBuilder().setName("plain").setSettings(
                    CollectionSettings.newBuilder().setSketch(SketchSettings.newBuilder().setEnabled(false))).build());
            List<CollectionInfo> before = s.stub().listCollections(ListCollectionsRequest.getDefaultInstance()).getCollectionsList();

            refused(s, UpdateCollectionRequest.newBuilder().setName("window"), "nothing to change");
            refused(s, UpdateCollectionRequest.newBuilder().setName("window").setMaxDistance(UInt32Value.of(4)), "max_distance 4 outside 0..3");
            refused(s, UpdateCollectionRequest.newBuilder().setName("window").setMaxDistance(UInt32Value.of(-1)), "max_distance 4294967295");
            refused(s, UpdateCollectionRequest.newBuilder().setName("default").setRetentionSeconds(UInt64Value.of(DAY)),
                    "retention_seconds: the collection keeps its documents forever");
            refused(s, UpdateCollectionRequest.newBuilder().setName("window").setRetentionSeconds(UInt64Value.of(0)),
                    "retention_seconds 0 (forever)");
            refused(s, UpdateCollectionRequest.newBuilder().setName("window").setRetentionSeconds(UInt64Value.of(HOURS_6 - 1)),
                    "retention_seconds 21599 is shorter than the collection's generations of 21600 s");
            refused(s, UpdateCollectionRequest.newBuilder().setName("window").setRetentionSeconds(UInt64Value.of(HOURS_6 * 10_001)),
                    "more than 10000");
            refused(s, UpdateCollectionRequest.newBuilder().setName("window").setRetentionSeconds(UInt64Value.of(-1)),
                    "retention_seconds 18446744073709551615 outside");
            for (double bad : new double[]{0, -0.5, 1.5, Double.NaN}) {
                refused(s, UpdateCollectionRequest.newBuilder().setName("window").setSketchMinJaccard(DoubleValue.of(bad)),
                        "sketch_min_jaccard " + bad + " outside (0, 1]");
            }
            refused(s, UpdateCollectionRequest.newBuilder().setName("plain").setSketchMinJaccard(DoubleValue.of(0.5)),
                    "sketch_min_jaccard: the collection verifies no sketches");
            refused(s, UpdateCollectionRequest.newBuilder().setName("window").setShortTextMinJaccard(DoubleValue.of(0.5)),
                    "short_text_min_jaccard: the collection verifies no short texts");
            refused(s, UpdateCollectionRequest.newBuilder().setName("plain").setShortFingerprintMinJaccard(DoubleValue.of(0.5)),
                    "short_fingerprint_min_jaccard: the collection gives short texts no MinHash fingerprint");
            // One bad field among good ones: the good ones are not applied either.
            refused(s, UpdateCollectionRequest.newBuilder().setName("window").setMaxDistance(UInt32Value.of(1))
                    .setSketchMinJaccard(DoubleValue.of(2)), "sketch_min_jaccard 2.0");
            refused(s, UpdateCollectionRequest.newBuilder().setMaxDistance(UInt32Value.of(1)), "name is empty");
            refused(s, UpdateCollectionRequest.newBuilder().setName("bad name").setMaxDistance(UInt32Value.of(1)), "bad name");

            StatusRuntimeException missing = assertThrows(StatusRuntimeException.class, () -> s.stub().updateCollection(
                    UpdateCollectionRequest.newBuilder().setName("missing").setMaxDistance(UInt32Value.of(1)).build()));
            assertEquals(Status.Code.NOT_FOUND, missing.getStatus().getCode());
            assertEquals(before, s.stub().listCollections(ListCollectionsRequest.getDefaultInstance()).getCollectionsList(),
                    "no refusal changed a setting");
        }
    }

    @Test
    void changes_namesEachChangedSettingWithItsOldAndNewValue() {
        CollectionSettings before = CollectionSettingsRules.complete(CollectionSettings.newBuilder().setRetentionSeconds(2 * DAY).build());
        CollectionSettings after = CollectionSettingsRules.updated(before, UpdateCollectionRequest.newBuilder().setName("news")
                .setMaxDistance(UInt32Value.of(3)).setRetentionSeconds(UInt64Value.of(3 * DAY)).setSketchMinJaccard(DoubleValue.of(0.5)).build());
        assertEquals("retention_seconds 172800 -> 259200, sketch.min_jaccard 0.4 -> 0.5", CollectionSettingsRules.changes(before, after));
    }

    private static void refused(TestServer s, UpdateCollectionRequest.Builder req, String message) {
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> s.stub().updateCollection(req.build()), message);
        assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode(), e.getStatus().toString());
        assertTrue(e.getStatus().getDescription().contains(message), e.getStatus().getDescription());
    }

    private static UpdateCollectionResponse update(TestServer s, UpdateCollectionRequest.Builder req) {
        return s.stub().updateCollection((req.getName().isEmpty() ? req.setName("window") : req).build());
    }

    private static io.simdex.proto.v1.Document textDoc(String id, String text) {
        return io.simdex.proto.v1.Document.newBuilder().setId(id).setText(text).build();
    }

    private static List<String> textIds(TestServer s, String text) {
        return textIds(s, "default", text);
    }

    private static List<String> textIds(TestServer s, String collection, String text) {
        return s.stub().query(QueryRequest.newBuilder().setCollection(collection).addProbes(Probe.newBuilder().setText(text)).build())
                .getResults(0).getMatchesList().stream().map(io.simdex.proto.v1.Match::getId).sorted().toList();
    }

    private static List<String> ids(TestServer s, long... fps) {
        QueryRequest.Builder q = QueryRequest.newBuilder().setCollection("window").setMaxDistance(UInt32Value.of(0));
        for (long fp : fps) {
            q.addProbes(Probe.newBuilder().setFingerprint(fp));
        }
        return s.stub().query(q.build()).getResultsList().stream().flatMap(r -> r.getMatchesList().stream())
                .map(io.simdex.proto.v1.Match::getId).sorted().toList();
    }

    private long generationDirs() throws Exception {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(p -> p.getFileName().toString().startsWith("g-") && p.getParent().getFileName().toString().equals("window")).count();
        }
    }
}
