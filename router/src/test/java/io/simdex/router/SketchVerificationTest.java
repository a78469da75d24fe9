package io.simdex.router;

import io.simdex.core.text.MinHashSketch;
import io.simdex.core.text.Sketcher;
import io.simdex.fingerprint.BitFlips;
import io.simdex.fingerprint.Hamming;
import io.simdex.router.index.IndexRouter;
import io.simdex.router.index.IndexRouter.TextChecks;
import io.simdex.router.index.SketchReads;
import io.simdex.router.index.ShortTextRule;
import io.simdex.router.index.SketchRule;
import io.simdex.router.index.VerificationBudget;
import io.simdex.router.index.Window;
import io.simdex.router.shard.LocalShardClient;
import io.simdex.router.shard.Placement;
import io.simdex.router.shard.ShardClient;
import io.simdex.server.ShardNode;
import io.simdex.server.store.FingerprintSketch;
import io.simdex.server.store.StoreSizing;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Sketch verification against a brute-force scan of its rule, on clustered fingerprints and texts. */
class SketchVerificationTest {
    private static final SketchRule RULE = new SketchRule(7, 0.4, Sketcher.DEFAULT);
    private static final int K = 3;

    @TempDir
    Path dir;

    private final SplittableRandom rnd = new SplittableRandom(20240607);
    private final WordTexts words = new WordTexts(rnd);

    @Test
    void query_matchesBruteForce_keepsIdenticalWithinThreeAndNearCopiesToSeven() {
        queryMatchesBruteForce(false);
    }

    @Test
    void query_overTheFanout_matchesBruteForce() {
        queryMatchesBruteForce(true);
    }

    private void queryMatchesBruteForce(boolean fanout) {
        // Clusters of 8 documents whose fingerprints lie within 12 bits of each other; half of
        // each cluster are near copies of one text, half unrelated texts; a few are fingerprints only.
        int clusters = 150;
        List<String> ids = new ArrayList<>();
        List<Long> fps = new ArrayList<>();
        List<String> texts = new ArrayList<>();
        for (int c = 0; c < clusters; c++) {
            long base = rnd.nextLong();
            String shared = words.text(30 + rnd.nextInt(30));
            for (int m = 0; m < 8; m++) {
                ids.add("c" + c + "m" + m);
                fps.add(BitFlips.flip(base, rnd.nextInt(7), rnd));
                texts.add(m == 7 ? null : m % 2 == 0 ? words.edit(shared, 1 + rnd.nextInt(3)) : words.text(30 + rnd.nextInt(30)));
            }
        }
        try (IndexRouter index = router(fanout)) {
            String[] idz = ids.toArray(String[]::new);
            long[] fpz = fps.stream().mapToLong(Long::longValue).toArray();
            String[] textz = texts.toArray(String[]::new);
            index.insert("c", Window.FOREVER, idz, fpz, checks(textz).stored());

            int n = 600;
            long[] probes = new long[n];
            String[] probeTexts = new String[n];
            int[] planted = new int[n];
            for (int q = 0; q < n; q++) {
                int j;
                do {
                    j = rnd.nextInt(idz.length);
                } while (textz[j] == null);
                planted[q] = j;
                probes[q] = BitFlips.flip(fpz[j], q % 9, rnd); // distances 0..8 from the planted document
                probeTexts[q] = switch (q % 3) {
                    case 0 -> textz[j];
                    case 1 -> words.edit(textz[j], 2);
                    default -> words.text(40);
                };
            }
            TextChecks probeChecks = checks(probeTexts);
            List<IndexRouter.Nearest> got = index.query("c", Window.FOREVER, probes, K, 0, probeChecks);
            // A fingerprint keeps the sketch of the last text stored with it, and judges all its
            // ids by it (members of a cluster not flipped share its base fingerprint).
            MinHashSketch[] sketches = checks(textz).sketches();
            Map<Long, MinHashSketch> kept = new HashMap<>();
            for (int m = 0; m < idz.length; m++) {
                if (sketches[m] != null) {
                    kept.put(fpz[m], sketches[m]);
                }
            }
            int shared = 0;
            for (int q = 0; q < n; q++) {
                Set<String> expected = new TreeSet<>();
                for (int m = 0; m < idz.length; m++) {
                    int d = Hamming.distance(probes[q], fpz[m]);
                    MinHashSketch stored = kept.get(fpz[m]);
                    boolean dup = stored == null ? d <= K : RULE.candidateDistance() >= d
                            && keptEstimate(probeChecks.sketches()[q], stored) >= RULE.minJaccard();
                    if (dup) {
                        expected.add(idz[m]);
                    }
                }
                Set<String> found = got.get(q).hits().stream().map(IndexRouter.Hit::id).collect(Collectors.toCollection(TreeSet::new));
                assertEquals(expected, found, "probe " + q);
                int d = q % 9;
                // Of a fingerprint whose kept sketch is another text's, the planted text is judged by that one.
                boolean ownSketch = kept.get(fpz[planted[q]]) == sketches[planted[q]];
                shared += ownSketch ? 0 : 1;
                if (ownSketch && q % 3 == 0 && d <= K) {
                    assertTrue(found.contains(idz[planted[q]]), "identical text at distance " + d + " dropped, probe " + q);
                }
                if (ownSketch && q % 3 == 1 && d > K && d <= 7) {
                    assertTrue(found.contains(idz[planted[q]]), "near copy at distance " + d + " not kept, probe " + q);
                }
            }
            assertTrue(shared > 0 && shared < n / 4, shared + " probes planted on a fingerprint shared with a later text");
        }
    }

    @Test
    void dedup_nearCopyBeyondThreeRejected_unrelatedTextWithinThreeKept_fingerprintsAsBefore() {
        long x = 0x0123_4567_89ab_cdefL;
        String original = words.text(40);
        try (IndexRouter index = router()) {
            assertTrue(index.dedup("c", Window.FOREVER, new String[]{"a", "f"}, new long[]{x, ~x}, K, 0,
                    checks(new String[]{original, null})).stream().allMatch(IndexRouter.Decision::inserted));
            String[] texts = {words.edit(original, 2), words.text(40), null, words.edit(original, 1)};
            long[] fps = {BitFlips.flip(x, 6, rnd), BitFlips.flip(x, 2, rnd), BitFlips.flip(~x, 3, rnd), BitFlips.flip(x, 9, rnd)};
            List<IndexRouter.Decision> d = index.dedup("c", Window.FOREVER, new String[]{"near", "other", "fp", "far"}, fps, K, 0,
                    checks(texts));
            assertFalse(d.get(0).inserted(), "a near copy 6 bits away is a duplicate");
            assertEquals("a", d.get(0).duplicates().get(0).id());
            assertTrue(d.get(0).duplicates().get(0).similarity() >= RULE.minJaccard());
            assertTrue(d.get(1).inserted(), "2 bits away but another text: not a duplicate");
            assertFalse(d.get(2).inserted(), "a fingerprint within 3 of a fingerprint: a duplicate, as without sketches");
            assertTrue(d.get(3).inserted(), "9 bits away: beyond the candidate distance");

            // Within one request: the second near copy is a duplicate of the first.
            List<IndexRouter.Decision> batch = index.dedup("c", Window.FOREVER, new String[]{"p", "q"},
                    new long[]{~x ^ 0xFF00_0000_0000_0000L, ~x ^ 0xFF00_0000_0000_0007L}, K, 0,
                    checks(new String[]{original + " tail", original + " tails"}));
            assertTrue(batch.get(0).inserted());
            assertFalse(batch.get(1).inserted(), "3 bits from p, nearly the same text");
        }
    }

    @Test
    void query_sketchesKeptByIdBeforeFingerprints_verifiedAtSixBits_onBothPaths() {
        long x = 0x0fed_cba9_8765_4321L;
        String original = words.text(40);
        MinHashSketch[] sketches = checks(new String[]{original}).sketches();
        for (boolean fanout : new boolean[]{false, true}) {
            try (IndexRouter index = router(fanout)) {
                // As a store written before sketches were kept by fingerprint: id -> 6-bit sketch.
                index.insert("old" + fanout, Window.FOREVER, new String[]{"a"}, new long[]{x});
                for (ShardNode node : nodes) {
                    node.putTexts("old" + fanout, 0, new String[]{"a"}, new String[]{checks(new String[]{original}).stored()[0]});
                }
                String[] probes = {words.edit(original, 1), words.text(40)};
                List<IndexRouter.Nearest> got = index.query("old" + fanout, Window.FOREVER, new long[]{x ^ 0x3F, x ^ 0x1}, K, 0,
                        checks(probes));
                MinHashSketch near = checks(probes).sketches()[0];
                assertEquals(List.of("a"), got.get(0).hits().stream().map(IndexRouter.Hit::id).toList(), "near copy 6 bits away");
                assertEquals(near.estimate(sketches[0]), got.get(0).hits().get(0).similarity(), 1e-9, "the 6-bit estimate");
                assertEquals(List.of(), got.get(1).hits(), "another text 1 bit away");
            }
        }
    }

    @Test
    void query_hotFingerprint_oneKeptSketchJudgesAllItsIds_countsThemAll_andHonoursTheLimit() {
        long x = 0x1357_9bdf_2468_ace0L;
        String original = words.text(50);
        int copies = 40;
        String[] ids = new String[copies];
        long[] fps = new long[copies];
        String[] texts = new String[copies];
        for (int i = 0; i < copies; i++) {
            ids[i] = "copy" + i;
            fps[i] = x;
            texts[i] = original;
        }
        for (boolean fanout : new boolean[]{false, true}) {
            try (IndexRouter index = router(fanout)) {
                String c = "hot" + fanout;
                index.insert(c, Window.FOREVER, ids, fps, checks(texts).stored());
                List<IndexRouter.Nearest> got = index.query(c, Window.FOREVER, new long[]{x ^ 0x7F, x ^ 0x7, x}, K, 0,
                        checks(new String[]{words.edit(original, 1), words.text(50), null}));
                assertEquals(copies, got.get(0).hits().size(), "near copy 7 bits away: every id of the fingerprint");
                assertEquals(copies, got.get(0).total());
                assertEquals(0, got.get(1).hits().size(), "another text 3 bits away: none");
                assertEquals(copies, got.get(2).hits().size(), "no text: by distance");
                List<IndexRouter.Nearest> limited = index.query(c, Window.FOREVER, new long[]{x ^ 0x7F}, K, 5,
                        checks(new String[]{words.edit(original, 1)}));
                assertEquals(5, limited.get(0).hits().size());
            }
        }
    }

    /** What the router estimates against a sketch kept by fingerprint: the bins' low bits. */
    private static double keptEstimate(MinHashSketch probe, MinHashSketch stored) {
        return probe.lowBits(FingerprintSketch.BITS).estimate(stored.lowBits(FingerprintSketch.BITS));
    }

    private final List<ShardNode> nodes = new ArrayList<>();

    @Test
    void query_moreCandidatesThanTheBudget_onlyTheNearestVerified() {
        nearestWithinBudget(false);
    }

    @Test
    void query_overTheFanout_moreCandidatesThanTheBudget_onlyTheNearestVerified() {
        nearestWithinBudget(true);
    }

    /**
     * Unrelated texts at distance 6 of a probe, a near copy at 5 and another at 7: with more
     * decoys than the budget leaves room for, the copy at 7 is not examined and each of the
     * budget's fingerprints is read once; with fewer, both copies are found and nothing is cut.
     */
    private void nearestWithinBudget(boolean fanout) {
        long probe = rnd.nextLong();
        String original = words.text(40);
        int budget = VerificationBudget.FINGERPRINTS;
        try (IndexRouter index = router(fanout)) {
            for (int decoys : new int[]{budget + 76, budget - 24}) {
                String c = "decoys" + decoys;
                int n = decoys + 2;
                String[] ids = new String[n];
                long[] fps = new long[n];
                String[] texts = new String[n];
                Set<Long> distinct = new HashSet<>();
                for (int i = 0; i < decoys; i++) {
                    ids[i] = "u" + i;
                    do {
                        fps[i] = BitFlips.flip(probe, 6, rnd);
                    } while (!distinct.add(fps[i]));
                    texts[i] = words.text(40);
                }
                ids[decoys] = "near";
                fps[decoys] = BitFlips.flip(probe, 5, rnd);
                texts[decoys] = words.edit(original, 1);
                ids[decoys + 1] = "far";
                fps[decoys + 1] = BitFlips.flip(probe, 7, rnd);
                texts[decoys + 1] = words.edit(original, 1);
                index.insert(c, Window.FOREVER, ids, fps, checks(texts).stored());

                long reads = SketchReads.reads();
                long capped = SketchReads.capped();
                List<IndexRouter.Nearest> got = index.query(c, Window.FOREVER, new long[]{probe}, K, 0, checks(new String[]{original}));
                Set<String> found = got.get(0).hits().stream().map(IndexRouter.Hit::id).collect(Collectors.toCollection(TreeSet::new));
                boolean cut = decoys + 2 > budget;
                assertEquals(cut ? Set.of("near") : Set.of("near", "far"), found, decoys + " decoys");
                assertEquals(cut ? budget : n, SketchReads.reads() - reads, "sketches read, " + decoys + " decoys");
                assertEquals(cut ? 1 : 0, SketchReads.capped() - capped, "probes cut, " + decoys + " decoys");
            }
        }
    }

    /** Short texts, kept by id as themselves, judged by their exact shingle Jaccard. */
    private static final ShortTextRule SHORT = new ShortTextRule(200, 6, 0.6, 3);

    @ParameterizedTest(name = "short texts {0}")
    @ValueSource(booleans = {false, true})
    void insert_cutBeforeWhatVerifiesItIsStored_leavesTheDocumentUnfound_untilARetryStoresBoth(boolean shortTexts) {
        // Three shards whose texts phase fails, as a node dying there would cut the insert.
        AtomicBoolean textsFail = new AtomicBoolean(true);
        List<ShardClient> shards = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            ShardNode node = new ShardNode(dir.resolve("cut" + i), c -> StoreSizing.forShare(50_000, 3, 8));
            nodes.add(node);
            shards.add(new LocalShardClient(node) {
                @Override
                public CompletableFuture<Integer> putTexts(String c, long gen, String[] ids, String[] texts) {
                    return textsFail.get() ? CompletableFuture.failedFuture(new IllegalStateException("cut in the texts phase"))
                            : super.putTexts(c, gen, ids, texts);
                }
            });
        }
        int words = shortTexts ? 15 : 40;
        try (IndexRouter index = new IndexRouter(shards, Placement.roundRobin(3))) {
            String text = this.words.text(words);
            long fp = rnd.nextLong();
            assertThrows(RuntimeException.class, () -> index.insert("c", Window.FOREVER, new String[]{"a"}, new long[]{fp},
                    checks(shortTexts, text).stored()));

            // Another text 2 bits away: judged by distance alone, a document stored without its
            // text or sketch would be its duplicate.
            long near = BitFlips.flip(fp, 2, rnd);
            String other = this.words.text(words);
            assertEquals(List.of(), index.query("c", Window.FOREVER, new long[]{near}, K, 0, checks(shortTexts, other)).get(0).hits(),
                    "no probe meets the document before what verifies it is stored");

            textsFail.set(false);
            index.insert("c", Window.FOREVER, new String[]{"a"}, new long[]{fp}, checks(shortTexts, text).stored());
            assertEquals(List.of(), index.query("c", Window.FOREVER, new long[]{near}, K, 0, checks(shortTexts, other)).get(0).hits(),
                    "the other text is judged by what is stored");
            assertEquals(List.of("a"), index.query("c", Window.FOREVER, new long[]{near}, K, 0, checks(shortTexts, this.words.edit(text, 1)))
                    .get(0).hits().stream().map(IndexRouter.Hit::id).toList(), "a near copy finds it once the retry stored both");
        }
    }

    /** One text's checks: as a short text ({@link #SHORT}) or by its sketch. */
    private static TextChecks checks(boolean shortText, String text) {
        return shortText ? new TextChecks(SHORT, new String[]{text}) : checks(new String[]{text});
    }

    private IndexRouter router() {
        return router(false);
    }

    private IndexRouter router(boolean fanout) {
        return ThreeShards.router(dir, fanout, nodes);
    }

    private static TextChecks checks(String[] texts) {
        MinHashSketch[] sketches = new MinHashSketch[texts.length];
        for (int i = 0; i < texts.length; i++) {
            sketches[i] = texts[i] == null ? null : RULE.sketch(texts[i]);
        }
        return new TextChecks(null, new String[texts.length], RULE, sketches);
    }
}
