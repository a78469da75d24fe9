package io.simdex.router.crawl;

import io.simdex.proto.v1.CollectionSettings;
import io.simdex.proto.v1.CreateCollectionRequest;
import io.simdex.proto.v1.DedupRequest;
import io.simdex.proto.v1.DedupResult;
import io.simdex.proto.v1.Document;
import io.simdex.proto.v1.FingerprintRequest;
import io.simdex.proto.v1.InsertRequest;
import io.simdex.router.ManualClock;
import io.simdex.router.TestServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The exact-content fast path: texts seen before take their recorded fingerprint. */
class ContentIndexTest {
    @TempDir
    Path dir;

    private static final String ARTICLE = "The city council voted on Tuesday to approve a long-delayed plan to restore the "
            + "wetlands along the northern bank of the river, ending nearly a decade of debate over flooding.";

    @Test
    void dedup_sameTextAgainInOtherCaseAndSpacing_knownTextSameFingerprintDuplicate() throws Exception {
        try (TestServer s = new TestServer(dir, java.time.Clock.systemUTC())) {
            DedupResult first = dedup(s, "default", "a1", ARTICLE);
            assertTrue(first.getInserted());
            assertFalse(first.getKnownText());

            DedupResult again = dedup(s, "default", "a2", "  " + ARTICLE.toUpperCase().replace(" ", " \n\t ") + "  ");
            assertTrue(again.getKnownText(), "normalised text was stored before");
            assertFalse(again.getInserted());
            assertEquals(first.getFingerprint(), again.getFingerprint());
            assertEquals("a1", again.getDuplicates(0).getId());
            assertEquals(0, again.getDuplicates(0).getDistance());

            long computed = s.stub().fingerprint(FingerprintRequest.newBuilder().addTexts(ARTICLE.toUpperCase()).build()).getFingerprints(0);
            assertEquals(computed, again.getFingerprint(), "the recorded fingerprint is the one SimHash gives");

            s.stub().insert(InsertRequest.newBuilder().addDocuments(Document.newBuilder().setId("b1").setText("Another story about tea.")).build());
            assertTrue(dedup(s, "default", "b2", "another STORY about tea.").getKnownText(), "Insert records contents too");

            DedupResult byFingerprint = s.stub().dedup(DedupRequest.newBuilder()
                    .addDocuments(Document.newBuilder().setId("f1").setFingerprint(first.getFingerprint())).build()).getResults(0);
            assertFalse(byFingerprint.getKnownText(), "documents given as fingerprints have no text");
            assertFalse(byFingerprint.getInserted());
        }
    }

    @Test
    void contentIndex_expiresWithItsGeneration() throws Exception {
        ManualClock clock = new ManualClock(Instant.parse("2026-11-22T00:00:00Z"));
        try (TestServer s = new TestServer(dir, clock)) {
            s.stub().createCollection(CreateCollectionRequest.newBuilder().setName("day").setSettings(
                    CollectionSettings.newBuilder().setRetentionSeconds(86_400).setGenerationSeconds(3_600)).build());
            assertFalse(dedup(s, "day", "x1", ARTICLE).getKnownText());
            clock.advance(Duration.ofHours(2));
            assertTrue(dedup(s, "day", "x2", ARTICLE).getKnownText());
            clock.advance(Duration.ofHours(24));
            DedupResult later = dedup(s, "day", "x3", ARTICLE);
            assertFalse(later.getKnownText(), "the content entry left the window with its generation");
            assertTrue(later.getInserted(), "and so did the document");
        }
    }

    private static DedupResult dedup(TestServer s, String collection, String id, String text) {
        return s.stub().dedup(DedupRequest.newBuilder().setCollection(collection)
                .addDocuments(Document.newBuilder().setId(id).setText(text)).build()).getResults(0);
    }
}
