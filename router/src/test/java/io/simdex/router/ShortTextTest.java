package io.simdex.router;

import io.simdex.fingerprint.BitFlips;
import io.simdex.fingerprint.LinearScan;
import io.simdex.proto.v1.CollectionSettings;
import io.simdex.proto.v1.CreateCollectionRequest;
import io.simdex.proto.v1.DedupRequest;
import io.simdex.proto.v1.DedupResult;
import io.simdex.proto.v1.Document;
import io.simdex.proto.v1.HanTokens;
import io.simdex.proto.v1.ShortFingerprintSettings;
import io.simdex.proto.v1.ShortTextSettings;
import io.simdex.proto.v1.StopWords;
import io.simdex.proto.v1.SketchSettings;
import io.simdex.router.index.IndexRouter;
import io.simdex.router.index.ShortTextRule;
import io.simdex.router.index.Window;
import io.simdex.router.shard.LocalShardClient;
import io.simdex.router.shard.Placement;
import io.simdex.router.shard.ShardClient;
import io.simdex.server.ShardNode;
import io.simdex.server.store.StoreSizing;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Candidates up to distance 7 by neighbour probing, verified by shingle Jaccard on short texts. */
class ShortTextTest {
    @TempDir
    Path dir;

    private IndexRouter router(Path dir) {
        List<ShardClient> shards = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            shards.add(new LocalShardClient(new ShardNode(dir.resolve("s" + i), c -> StoreSizing.forShare(50_000, 3, 8))));
        }
        return new IndexRouter(shards, Placement.roundRobin(3));
    }

    @Test
    void query_beyondThree_neighbourProbesMatchLinearScanUpToSeven() {
        try (IndexRouter index = router(dir)) {
            SplittableRandom rnd = new SplittableRandom(8);
            int n = 20_000;
            long[] fps = rnd.longs(n).toArray();
            String[] ids = new String[n];
            for (int i = 0; i < n; i++) {
                ids[i] = Long.toHexString(fps[i]);
            }
            index.insert("c", Window.FOREVER, ids, fps);
            LinearScan reference = new LinearScan(fps);
            long[] probes = new long[180];
            for (int i = 0; i < probes.length; i++) {
                probes[i] = BitFlips.flip(fps[rnd.nextInt(n)], i % 9, rnd); // distances 0..8
            }
            for (int k = 4; k <= 7; k++) {
                List<List<IndexRouter.Hit>> hits = index.query("c", Window.FOREVER, probes, k, 0).stream().map(IndexRouter.Nearest::hits).toList();
                for (int q = 0; q < probes.length; q++) {
                    long[] got = hits.get(q).stream().mapToLong(IndexRouter.Hit::fingerprint).distinct()
                            .boxed().sorted(Long::compareUnsigned).mapToLong(Long::longValue).toArray();
                    assertArrayEquals(reference.within(probes[q], k), got, "k=" + k + " probe " + q);
                }
            }
        }
    }

    @Test
    void dedup_shortTexts_verifiedByJaccardNotByDistanceAlone() {
        ShortTextRule rule = new ShortTextRule(200, 6, 0.6, 3);
        long x = 0x0123_4567_89ab_cdefL;
        SplittableRandom rnd = new SplittableRandom(1);
        try (IndexRouter index = router(dir)) {
            String[] texts = {"apple pie recipe with cinnamon", "stock market falls on rate fears", "apple pie recipe with cinnamon!"};
            long[] fps = {x, BitFlips.flip(x, 3, rnd), BitFlips.flip(x, 6, rnd)};
            List<IndexRouter.Decision> d = index.dedup("c", Window.FOREVER, new String[]{"a", "b", "c"}, fps, 3, 0,
                    new IndexRouter.TextChecks(rule, texts));
            assertTrue(d.get(0).inserted());
            assertTrue(d.get(1).inserted(), "3 bits from a, but the texts differ: not a duplicate");
            assertFalse(d.get(2).inserted(), "6 bits from a, beyond max_distance, but nearly the same text");
            assertEquals("a", d.get(2).duplicates().get(0).id());
            assertTrue(d.get(2).duplicates().get(0).similarity() >= 0.6);

            // Against the store, in a later request: the stored short texts are what is compared.
            List<IndexRouter.Decision> later = index.dedup("c", Window.FOREVER, new String[]{"d", "e"},
                    new long[]{BitFlips.flip(x, 5, rnd), BitFlips.flip(x, 2, rnd)}, 3, 0,
                    new IndexRouter.TextChecks(rule, new String[]{"apple pie recipe with cinnamon.", "weather: rain all week"}));
            assertFalse(later.get(0).inserted());
            assertTrue(later.get(0).duplicates().stream().anyMatch(h -> h.id().equals("a")));
            assertFalse(later.get(0).duplicates().stream().anyMatch(h -> h.id().equals("b")), "b's text is unlike d's");
            assertTrue(later.get(1).inserted(), "2 bits from a, yet unrelated text");
        }
    }

    @Test
    void dedup_shortTextCollectionOverGrpc_catchesVariantsWithinSevenBits() throws Exception {
        String first = "Breaking: magnitude 6.1 earthquake hits Tokyo, no tsunami warning";
        String[] variants = {
                "Breaking: magnitude 6.1 earthquake hits Tokyo, no tsunami warning yet",    // 0 bits
                "Breaking: magnitude 6.2 earthquake hits Tokyo, no tsunami warning",        // 5 bits
                "Breaking: magnitude 6.1 quake hits Tokyo, no tsunami warning",             // 7 bits
                "Breaking: magnitude 6.1 earthquake hits Tokyo area, no tsunami warning",   // 7 bits
                "Breaking: magnitude 6.1 earthquake strikes Tokyo, no tsunami warning"};    // 8 bits
        // The bit counts above are those of SimHash over HanLP words with stop words dropped; each collection names that pipeline.
        CollectionSettings words = CollectionSettings.newBuilder().setHanTokens(HanTokens.HANLP_WORDS).setStopWords(StopWords.DROP_STOP_WORDS)
                .setShortFingerprint(ShortFingerprintSettings.newBuilder().setEnabled(false)).build();
        try (TestServer s = new TestServer(dir, java.time.Clock.systemUTC())) {
            s.stub().createCollection(CreateCollectionRequest.newBuilder().setName("posts").setSettings(words.toBuilder()
                    .setShortText(ShortTextSettings.newBuilder().setEnabled(true))).build());
            s.stub().createCollection(CreateCollectionRequest.newBuilder().setName("plain").setSettings(words.toBuilder()
                    .setSketch(SketchSettings.newBuilder().setEnabled(false))).build());
            s.stub().createCollection(CreateCollectionRequest.newBuilder().setName("sketched").setSettings(words.toBuilder()
                    .setSketch(SketchSettings.newBuilder().setEnabled(true).setCandidateDistance(7))).build());
            DedupResult base = dedup(s, "posts", "p0", first);
            assertTrue(base.getInserted());
            assertTrue(dedup(s, "plain", "p0", first).getInserted());
            assertTrue(dedup(s, "sketched", "p0", first).getInserted());
            int caughtBeyondThree = 0;
            for (int i = 0; i < variants.length; i++) {
                DedupResult v = dedup(s, "posts", "v" + i, variants[i]);
                DedupResult p = dedup(s, "plain", "v" + i, variants[i]);
                DedupResult sk = dedup(s, "sketched", "v" + i, variants[i]);
                int d = Long.bitCount(v.getFingerprint() ^ base.getFingerprint());
                // Within reach of the neighbour probes (7) a near-identical short text is caught;
                // SimHash alone (max_distance 3) catches only those within 3.
                assertEquals(d <= 7, !v.getInserted(), variants[i] + " at " + d + " bits");
                assertEquals(d <= 3, !p.getInserted(), variants[i] + " at " + d + " bits, plain");
                // A collection with sketches verifies them up to 7 too.
                assertEquals(d <= 7, !sk.getInserted(), variants[i] + " at " + d + " bits, sketches");
                if (!v.getInserted()) {
                    assertEquals("p0", v.getDuplicates(0).getId());
                    assertTrue(v.getDuplicates(0).getSimilarity() >= 0.6f, v.toString());
                    caughtBeyondThree += d > 3 ? 1 : 0;
                }
            }
            assertEquals(3, caughtBeyondThree, "the 5- and 7-bit variants need verification to be caught");
            assertTrue(dedup(s, "posts", "other", "Stocks rally as central bank holds rates").getInserted());
            assertTrue(dedup(s, "sketched", "other", "Stocks rally as central bank holds rates").getInserted());
        }
    }

    private static DedupResult dedup(TestServer s, String collection, String id, String text) {
        return s.stub().dedup(DedupRequest.newBuilder().setCollection(collection)
                .addDocuments(Document.newBuilder().setId(id).setText(text)).build()).getResults(0);
    }
}
