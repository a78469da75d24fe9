package io.simdex.router;

import io.simdex.core.text.MinHashSketch;
import io.simdex.core.text.Sketcher;
import io.simdex.fingerprint.BitFlips;
import io.simdex.fingerprint.BlockTables;
import io.simdex.fingerprint.Hamming;
import io.simdex.router.index.IndexRouter;
import io.simdex.router.index.IndexRouter.SecondProbes;
import io.simdex.router.index.IndexRouter.TextChecks;
import io.simdex.router.index.SketchRule;
import io.simdex.router.index.Window;
import io.simdex.server.ShardNode;
import io.simdex.server.store.FingerprintSketch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Texts that probe with two fingerprints (a short text's MinHash fingerprint and its SimHash,
 * near the boundary of a collection's short-text fingerprint): each probe judged by its own
 * sketch rule, answers folded into one per text, checked against a brute-force scan; Dedup
 * finds earlier documents of its request by either probe and locks the buckets of both.
 */
class SecondProbeTest {
    /** The rule of SimHash probes (the collection's sketch) and of MinHash probes (the short-text fingerprint's). */
    private static final SketchRule SIMHASH = new SketchRule(6, 0.4, Sketcher.DEFAULT);
    private static final SketchRule MINHASH = new SketchRule(BlockTables.MAX_CANDIDATE_DISTANCE, 0.4, Sketcher.DEFAULT);
    /** A second MinHash probe as collections make it: candidates to 12 from the buckets of a probe within 5. */
    private static final SketchRule MINHASH_NARROW = MINHASH.readingBucketsOf(5);
    private static final int K = 3;

    @TempDir
    Path dir;

    private final SplittableRandom rnd = new SplittableRandom(20261127);
    private final WordTexts words = new WordTexts(rnd);
    private final List<ShardNode> nodes = new ArrayList<>();

    @Test
    void query_local_matchesBruteForceOverBothProbes() {
        queryMatchesBruteForce(false);
    }

    @Test
    void query_overTheFanout_matchesBruteForceOverBothProbes() {
        queryMatchesBruteForce(true);
    }

    /**
     * Clusters of documents whose fingerprints lie within 8 bits of each other, half near copies
     * of one text; probes planted at distances 0..8 from one document by their first fingerprint
     * and from another (or the same) by their second.
     */
    private void queryMatchesBruteForce(boolean fanout) {
        int clusters = 120;
        int size = 6;
        String[] ids = new String[clusters * size];
        long[] fps = new long[ids.length];
        String[] texts = new String[ids.length];
        for (int c = 0; c < clusters; c++) {
            long base = rnd.nextLong();
            String shared = words.text(30 + rnd.nextInt(20));
            for (int m = 0; m < size; m++) {
                int i = c * size + m;
                ids[i] = "c" + c + "m" + m;
                fps[i] = BitFlips.flip(base, rnd.nextInt(5), rnd);
                texts[i] = m == size - 1 ? null : m % 2 == 0 ? words.edit(shared, 1 + rnd.nextInt(3)) : words.text(30 + rnd.nextInt(20));
            }
        }
        try (IndexRouter index = router(fanout)) {
            index.insert("c", Window.FOREVER, ids, fps, checks(texts, null, SecondProbes.NONE).stored());
            Map<Long, MinHashSketch> kept = new HashMap<>();
            MinHashSketch[] storedSketches = checks(texts, null, SecondProbes.NONE).sketches();
            for (int m = 0; m < ids.length; m++) {
                if (storedSketches[m] != null) {
                    kept.put(fps[m], storedSketches[m]);
                }
            }
            int n = 400;
            long[] probes = new long[n];
            String[] probeTexts = new String[n];
            boolean[] firstIsMinHash = new boolean[n];
            List<Integer> secondItems = new ArrayList<>();
            List<Long> secondFps = new ArrayList<>();
            List<SketchRule> secondRules = new ArrayList<>();
            for (int q = 0; q < n; q++) {
                int j = textDoc(texts);
                probes[q] = BitFlips.flip(fps[j], q % 9, rnd);
                probeTexts[q] = q % 4 == 3 ? words.text(40) : words.edit(texts[j], q % 4);
                firstIsMinHash[q] = rnd.nextBoolean();
                if (q % 3 != 0) {
                    // The second probe: near another document of the same text family, or near the first probe (both find the same ids).
                    int other = q % 3 == 1 ? j - j % size + rnd.nextInt(size) : j;
                    secondItems.add(q);
                    secondFps.add(q % 3 == 1 ? BitFlips.flip(fps[other], (q / 3) % 14, rnd) : probes[q] ^ 1L << rnd.nextInt(64));
                    secondRules.add(firstIsMinHash[q] ? SIMHASH : q % 2 == 0 ? MINHASH : MINHASH_NARROW);
                }
            }
            SecondProbes second = new SecondProbes(secondItems.stream().mapToInt(Integer::intValue).toArray(),
                    secondFps.stream().mapToLong(Long::longValue).toArray(), secondRules.toArray(SketchRule[]::new));
            TextChecks checks = checks(probeTexts, firstIsMinHash, second);

            List<IndexRouter.Nearest> all = index.query("c", Window.FOREVER, probes, K, 0, checks);
            List<IndexRouter.Nearest> limited = index.query("c", Window.FOREVER, probes, K, 3, checks);
            int foundBySecondOnly = 0;
            int beyondSeven = 0;
            int narrowBeyondFive = 0;
            for (int q = 0; q < n; q++) {
                // Brute force: an id is a match when either probe's rule accepts it; its distance is the nearer.
                Map<String, Integer> expected = new HashMap<>();
                for (int p = -1; p < second.items().length; p++) {
                    if (p >= 0 && second.items()[p] != q) {
                        continue;
                    }
                    long probe = p < 0 ? probes[q] : second.fps()[p];
                    SketchRule rule = p < 0 ? checks.sketchRules()[q] : second.rules()[p];
                    for (int m = 0; m < ids.length; m++) {
                        int d = Hamming.distance(probe, fps[m]);
                        MinHashSketch stored = kept.get(fps[m]);
                        boolean dup = stored == null ? d <= K
                                : candidate(probe, fps[m], rule.candidateDistance(), rule == MINHASH_NARROW ? 5 : rule.candidateDistance())
                                && keptEstimate(checks.sketches()[q], stored) >= rule.minJaccard();
                        if (dup) {
                            foundBySecondOnly += p >= 0 && !expected.containsKey(ids[m]) ? 1 : 0;
                            narrowBeyondFive += p >= 0 && rule == MINHASH_NARROW && d > 5 ? 1 : 0;
                            expected.merge(ids[m], d, Math::min);
                        }
                    }
                }
                List<Map.Entry<String, Integer>> order = new ArrayList<>(expected.entrySet());
                order.sort(Map.Entry.<String, Integer>comparingByValue().thenComparing(Map.Entry.comparingByKey()));
                List<String> expectedIds = order.stream().map(Map.Entry::getKey).toList();
                IndexRouter.Nearest got = all.get(q);
                assertEquals(expectedIds, got.hits().stream().map(IndexRouter.Hit::id).toList(), "probe " + q);
                assertEquals(order.stream().map(Map.Entry::getValue).toList(), got.hits().stream().map(IndexRouter.Hit::distance).toList(),
                        "distances, probe " + q);
                assertEquals(expected.size(), got.total(), "total, probe " + q);
                beyondSeven += (int) got.hits().stream().filter(h -> h.distance() > BlockTables.MAX_NEIGHBOUR_DISTANCE).count();
                assertEquals(expectedIds.subList(0, Math.min(3, expectedIds.size())),
                        limited.get(q).hits().stream().map(IndexRouter.Hit::id).toList(), "limit 3, probe " + q);
            }
            assertTrue(foundBySecondOnly > n / 10, "second probes found " + foundBySecondOnly + " documents the first did not");
            assertTrue(beyondSeven > n / 50, beyondSeven + " matches beyond 7 bits, where only the probed buckets' candidates count");
            assertTrue(narrowBeyondFive > n / 50, narrowBeyondFive + " matches beyond 5 bits of second probes that read the buckets of 5");
        }
    }

    @Test
    void dedup_findsEarlierDocumentsOfItsRequestAndOfTheStoreByTheSecondProbe() {
        String original = words.text(40);
        long a = rnd.nextLong();
        try (IndexRouter index = router(false)) {
            // b's first fingerprint is unrelated to a's; its second lies 7 bits from a.
            long b = ~a;
            SecondProbes bSecond = new SecondProbes(new int[]{1}, new long[]{BitFlips.flip(a, 7, rnd)}, new SketchRule[]{MINHASH});
            List<IndexRouter.Decision> d = index.dedup("c", Window.FOREVER, new String[]{"a", "b"}, new long[]{a, b}, K, 0,
                    checks(new String[]{original, words.edit(original, 1)}, new boolean[]{true, false}, bSecond));
            assertTrue(d.get(0).inserted());
            assertFalse(d.get(1).inserted(), "found by its second probe among the request's documents");
            assertEquals("a", d.get(1).duplicates().get(0).id());
            assertEquals(7, d.get(1).duplicates().get(0).distance());

            // From the store: c's second probe finds a, its first nothing; an unrelated text there is kept.
            SecondProbes cSecond = new SecondProbes(new int[]{0, 1}, new long[]{BitFlips.flip(a, 6, rnd), BitFlips.flip(a, 2, rnd)},
                    new SketchRule[]{MINHASH, MINHASH});
            List<IndexRouter.Decision> later = index.dedup("c", Window.FOREVER, new String[]{"c", "u"}, new long[]{a ^ 0xFFFF_0000L, ~a ^ 0xFF},
                    K, 0, checks(new String[]{words.edit(original, 2), words.text(40)}, new boolean[]{false, false}, cSecond));
            assertFalse(later.get(0).inserted());
            assertEquals(List.of("a"), later.get(0).duplicates().stream().map(IndexRouter.Hit::id).toList());
            assertTrue(later.get(1).inserted(), "2 bits from a by its second probe, but another text");
        }
    }

    /**
     * A second probe that reads the buckets of 5 finds a document 7 bits away when a table whose
     * neighbour buckets it reads (the first two) holds it, not when only a later table's would:
     * among the request's own documents as in the store, so a request decides as the requests
     * it could be split into would.
     */
    @Test
    void dedup_narrowSecondProbe_findsWhatItsBucketsHold_inTheRequestAsInTheStore() {
        String original = words.text(40);
        long a = rnd.nextLong();
        // 1 bit in block 0 (read with its neighbours), 2 in each other block: held.
        long held = flipInBlocks(a, 1, 2, 2, 2);
        // 1 bit in block 2 (its neighbours not read), 2 in each other: held only by the 68 buckets of a probe within 7.
        long notHeld = flipInBlocks(a, 2, 2, 1, 2);
        int run = 0;
        for (boolean sameRequest : new boolean[] {true, false}) {
            for (long second : new long[] {held, notHeld}) {
                try (IndexRouter index = ThreeShards.router(dir.resolve("run" + run++), false, nodes)) {
                    String[] texts = {original, words.edit(original, 1)};
                    long b = ~a;
                    SecondProbes bSecond = new SecondProbes(new int[]{sameRequest ? 1 : 0}, new long[]{second},
                            new SketchRule[]{MINHASH_NARROW});
                    IndexRouter.Decision d;
                    if (sameRequest) {
                        d = index.dedup("c", Window.FOREVER, new String[]{"a", "b"}, new long[]{a, b}, K, 0,
                                checks(texts, new boolean[]{true, false}, bSecond)).get(1);
                    } else {
                        assertTrue(index.dedup("c", Window.FOREVER, new String[]{"a"}, new long[]{a}, K, 0,
                                checks(new String[]{texts[0]}, new boolean[]{true}, SecondProbes.NONE)).get(0).inserted());
                        d = index.dedup("c", Window.FOREVER, new String[]{"b"}, new long[]{b}, K, 0,
                                checks(new String[]{texts[1]}, new boolean[]{false}, bSecond)).get(0);
                    }
                    String where = (sameRequest ? "in the request" : "in the store") + ", second probe " + (second == held ? "held" : "not held");
                    assertEquals(7, Hamming.distance(a, second), where);
                    assertEquals(second != held, d.inserted(), where);
                }
            }
        }
    }

    /** {@code fp} with the given number of its low bits flipped in each 16-bit block. */
    private static long flipInBlocks(long fp, int... bits) {
        for (int t = 0; t < bits.length; t++) {
            for (int j = 0; j < bits[t]; j++) {
                fp ^= 1L << (t * BlockTables.BLOCK_BITS + j);
            }
        }
        return fp;
    }

    /**
     * Pairs of near-duplicate texts whose first fingerprints are unrelated, each probing the
     * other's by its second, sent at the same moment from two threads: exactly one of each pair
     * is kept, because a Dedup locks the buckets of its second probes too.
     */
    @Test
    void dedup_concurrentPairsFoundOnlyBySecondProbes_keepExactlyOne() throws Exception {
        int pairs = 150;
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try (IndexRouter index = router(false)) {
            for (int p = 0; p < pairs; p++) {
                String text = words.text(30);
                long x = rnd.nextLong();
                long y = rnd.nextLong();
                TextChecks xChecks = checks(new String[]{text}, new boolean[]{false},
                        new SecondProbes(new int[]{0}, new long[]{BitFlips.flip(y, 5, rnd)}, new SketchRule[]{MINHASH}));
                TextChecks yChecks = checks(new String[]{words.edit(text, 1)}, new boolean[]{true},
                        new SecondProbes(new int[]{0}, new long[]{BitFlips.flip(x, 5, rnd)}, new SketchRule[]{SIMHASH}));
                CyclicBarrier start = new CyclicBarrier(2);
                int pair = p;
                Future<IndexRouter.Decision> fx = pool.submit(() -> {
                    start.await();
                    return index.dedup("c", Window.FOREVER, new String[]{"x" + pair}, new long[]{x}, K, 0, xChecks).get(0);
                });
                Future<IndexRouter.Decision> fy = pool.submit(() -> {
                    start.await();
                    return index.dedup("c", Window.FOREVER, new String[]{"y" + pair}, new long[]{y}, K, 0, yChecks).get(0);
                });
                IndexRouter.Decision dx = fx.get();
                IndexRouter.Decision dy = fy.get();
                assertTrue(dx.inserted() ^ dy.inserted(), "pair " + p + ": x " + dx.inserted() + ", y " + dy.inserted());
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * Whether the index gives {@code fp} as a candidate of {@code probe} within {@code k}, reading
     * the buckets of a probe within {@code buckets}: every fingerprint within both (up to 7), and
     * beyond that those within k whose 16-bit block is equal to the probe's in some table, or
     * within one bit in a table whose neighbour buckets are read (the first buckets - 3).
     */
    private static boolean candidate(long probe, long fp, int k, int buckets) {
        int d = Hamming.distance(probe, fp);
        if (d <= Math.min(Math.min(k, buckets), BlockTables.MAX_NEIGHBOUR_DISTANCE)) {
            return true;
        }
        boolean held = false;
        for (int t = 0; t < BlockTables.TABLES; t++) {
            int apart = Integer.bitCount(BlockTables.block(probe, t) ^ BlockTables.block(fp, t));
            held |= apart == 0 || apart == 1 && t < BlockTables.neighbourTables(buckets);
        }
        return d <= k && held;
    }

    /** What the router estimates against a sketch kept by fingerprint: the bins' low bits. */
    private static double keptEstimate(MinHashSketch probe, MinHashSketch stored) {
        return probe.lowBits(FingerprintSketch.BITS).estimate(stored.lowBits(FingerprintSketch.BITS));
    }

    private IndexRouter router(boolean fanout) {
        return ThreeShards.router(dir, fanout, nodes);
    }

    /** Sketches of the texts (null: a fingerprint), judged by the MinHash rule where {@code minHash[i]}, else the SimHash rule. */
    private static TextChecks checks(String[] texts, boolean[] minHash, SecondProbes second) {
        MinHashSketch[] sketches = new MinHashSketch[texts.length];
        SketchRule[] rules = new SketchRule[texts.length];
        for (int i = 0; i < texts.length; i++) {
            if (texts[i] != null) {
                rules[i] = minHash != null && minHash[i] ? MINHASH : SIMHASH;
                sketches[i] = rules[i].sketch(texts[i]);
            }
        }
        return new TextChecks(null, new String[texts.length], rules, sketches, second);
    }

    private int textDoc(String[] texts) {
        int j;
        do {
            j = rnd.nextInt(texts.length);
        } while (texts[j] == null);
        return j;
    }

}
