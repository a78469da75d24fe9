package io.simdex.router;

import io.simdex.core.text.MinHashSketch;
import io.simdex.core.text.Sketcher;
import io.simdex.fingerprint.BitFlips;
import io.simdex.fingerprint.Hamming;
import io.simdex.router.index.IndexRouter;
import io.simdex.router.index.IndexRouter.TextChecks;
import io.simdex.router.index.SketchRule;
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
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Sketch verification against a brute-force scan of its rule, on clustered fingerprints and texts. */
class SketchVerificationTest {
    private static final SketchRule RULE = new SketchRule(7, 0.4, Sketcher.DEFAULT);
    private static final int K = 3;

    @TempDir
    Path dir;

    private final SplittableRandom rnd = new SplittableRandom(20240607);
    private final String[] vocabulary = rnd.ints(400, 3, 9).mapToObj(this::word).toArray(String[]::new);

    @Test
    void query_matchesBruteForce_keepsIdenticalWithinThreeAndNearCopiesToSeven() {
        // Clusters of 8 documents whose fingerprints lie within 12 bits of each other; half of
        // each cluster are near copies of one text, half unrelated texts; a few are fingerprints only.
        int clusters = 150;
        List<String> ids = new ArrayList<>();
        List<Long> fps = new ArrayList<>();
        List<String> texts = new ArrayList<>();
        for (int c = 0; c < clusters; c++) {
            long base = rnd.nextLong();
            String shared = text(30 + rnd.nextInt(30));
            for (int m = 0; m < 8; m++) {
                ids.add("c" + c + "m" + m);
                fps.add(BitFlips.flip(base, rnd.nextInt(7), rnd));
                texts.add(m == 7 ? null : m % 2 == 0 ? edit(shared, 1 + rnd.nextInt(3)) : text(30 + rnd.nextInt(30)));
            }
        }
        try (IndexRouter index = router()) {
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
                    case 1 -> edit(textz[j], 2);
                    default -> text(40);
                };
            }
            TextChecks probeChecks = checks(probeTexts);
            List<IndexRouter.Nearest> got = index.query("c", Window.FOREVER, probes, K, 0, probeChecks);
            MinHashSketch[] stored = checks(textz).sketches();
            for (int q = 0; q < n; q++) {
                Set<String> expected = new TreeSet<>();
                for (int m = 0; m < idz.length; m++) {
                    int d = Hamming.distance(probes[q], fpz[m]);
                    boolean dup = stored[m] == null ? d <= K : RULE.candidateDistance() >= d
                            && probeChecks.sketches()[q].estimate(stored[m]) >= RULE.minJaccard();
                    if (dup) {
                        expected.add(idz[m]);
                    }
                }
                Set<String> found = got.get(q).hits().stream().map(IndexRouter.Hit::id).collect(Collectors.toCollection(TreeSet::new));
                assertEquals(expected, found, "probe " + q);
                int d = q % 9;
                if (q % 3 == 0 && d <= K) {
                    assertTrue(found.contains(idz[planted[q]]), "identical text at distance " + d + " dropped, probe " + q);
                }
                if (q % 3 == 1 && d > K && d <= 7) {
                    assertTrue(found.contains(idz[planted[q]]), "near copy at distance " + d + " not kept, probe " + q);
                }
            }
        }
    }

    @Test
    void dedup_nearCopyBeyondThreeRejected_unrelatedTextWithinThreeKept_fingerprintsAsBefore() {
        long x = 0x0123_4567_89ab_cdefL;
        String original = text(40);
        try (IndexRouter index = router()) {
            assertTrue(index.dedup("c", Window.FOREVER, new String[]{"a", "f"}, new long[]{x, ~x}, K, 0,
                    checks(new String[]{original, null})).stream().allMatch(IndexRouter.Decision::inserted));
            String[] texts = {edit(original, 2), text(40), null, edit(original, 1)};
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

    private IndexRouter router() {
        List<ShardClient> shards = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            shards.add(new LocalShardClient(new ShardNode(dir.resolve("s" + i), c -> StoreSizing.forShare(50_000, 3, 8))));
        }
        return new IndexRouter(shards, Placement.roundRobin(3));
    }

    private static TextChecks checks(String[] texts) {
        MinHashSketch[] sketches = new MinHashSketch[texts.length];
        for (int i = 0; i < texts.length; i++) {
            sketches[i] = texts[i] == null ? null : RULE.sketch(texts[i]);
        }
        return new TextChecks(null, new String[texts.length], RULE, sketches);
    }

    private String text(int words) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < words; i++) {
            b.append(i == 0 ? "" : " ").append(vocabulary[rnd.nextInt(vocabulary.length)]);
        }
        return b.toString();
    }

    /** {@code text} with {@code words} of its words replaced. */
    private String edit(String text, int words) {
        String[] w = text.split(" ");
        for (int i = 0; i < words; i++) {
            w[rnd.nextInt(w.length)] = vocabulary[rnd.nextInt(vocabulary.length)];
        }
        return String.join(" ", w);
    }

    private String word(int letters) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < letters; i++) {
            b.append((char) ('a' + rnd.nextInt(26)));
        }
        return b.toString();
    }
}
