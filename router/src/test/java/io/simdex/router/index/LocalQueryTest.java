package io.simdex.router.index;

import io.simdex.fingerprint.BitFlips;
import io.simdex.fingerprint.BlockTables;
import io.simdex.fingerprint.Hamming;
import io.simdex.router.shard.LocalShardClient;
import io.simdex.router.shard.Placement;
import io.simdex.router.shard.ShardClient;
import io.simdex.server.ShardNode;
import io.simdex.server.store.StoreSizing;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The query path over shards in this JVM ({@link LocalQuery}) against brute force, and against
 * the router's fan-out over the same nodes: the same hits, in the same order.
 */
class LocalQueryTest {
    private static final String C = "c";
    private static final Window TWO_GENERATIONS = new Window(1, new long[]{0, 1});

    @TempDir
    Path dir;

    private final List<ShardNode> nodes = new ArrayList<>();
    private final Placement placement = Placement.roundRobin(4);
    private IndexRouter local;
    private IndexRouter fanout;

    @BeforeEach
    void open() {
        List<ShardClient> direct = new ArrayList<>();
        List<ShardClient> wrapped = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            ShardNode node = new ShardNode(dir.resolve("s" + i), c -> StoreSizing.forShare(50_000, 4, 8));
            nodes.add(node);
            direct.add(new LocalShardClient(node));
            wrapped.add(new FanoutOnly(node));
        }
        local = new IndexRouter(direct, placement);
        fanout = new IndexRouter(wrapped, placement, wrapped, 1, false);
    }

    @AfterEach
    void close() {
        fanout.close();
        local.close();
    }

    @Test
    void routerOverLocalShards_queriesInTheCallingThread_otherwiseFansOut() {
        assertTrue(local.queriesInCallingThread());
        assertFalse(fanout.queriesInCallingThread());
    }

    @Test
    void plantedAt0To5_distances3And5And7_matchBruteForceAndTheFanout() {
        SplittableRandom rnd = new SplittableRandom(11);
        int n = 20_000;
        long[] fps = rnd.longs(n).toArray();
        String[] ids = new String[n];
        for (int i = 0; i < n; i++) {
            ids[i] = "d" + i;
        }
        // Some fingerprints carry two ids: both must come back.
        for (int i = 0; i < 200; i++) {
            fps[n - 1 - i] = fps[i];
        }
        local.insert(C, Window.FOREVER, ids, fps);
        long[] probes = new long[300];
        for (int i = 0; i < probes.length; i++) {
            probes[i] = BitFlips.flip(fps[rnd.nextInt(n)], i % 6, rnd);
        }
        for (int k : new int[]{0, 3, 5, BlockTables.MAX_NEIGHBOUR_DISTANCE}) {
            List<IndexRouter.Nearest> got = local.query(C, Window.FOREVER, probes, k, 0);
            List<IndexRouter.Nearest> fannedOut = fanout.query(C, Window.FOREVER, probes, k, 0);
            for (int q = 0; q < probes.length; q++) {
                assertEquals(fannedOut.get(q), got.get(q), "k=" + k + ", probe " + q + ": the fan-out's hits");
                TreeSet<String> expected = new TreeSet<>();
                for (int i = 0; i < n; i++) {
                    if (Hamming.distance(fps[i], probes[q]) <= k) {
                        expected.add(ids[i]);
                    }
                }
                TreeSet<String> found = new TreeSet<>();
                for (IndexRouter.Hit h : got.get(q).hits()) {
                    found.add(h.id());
                    assertEquals(Hamming.distance(h.fingerprint(), probes[q]), h.distance());
                }
                assertEquals(expected, found, "k=" + k + ", probe " + q + " planted at " + q % 6);
                assertEquals(expected.size(), got.get(q).total(), "k=" + k + ", probe " + q + ": the total counts every match");
            }
        }
    }

    /**
     * Neighbours planted with their differing bits spread over the blocks in every way that
     * shares no block with the probe, (1,1,1,1) to (2,2,2,2) and (3,2,1,1) in every order, so
     * that within 4..7 only some tables' one-bit-neighbour buckets hold them
     * ({@link BlockTables#neighbourTables}): each k finds exactly those within k, d = k in and
     * k + 1 out, as brute force and the fan-out do.
     */
    @Test
    void spreadOverAllBlocks_distances4To7_matchBruteForceAndTheFanout() {
        SplittableRandom rnd = new SplittableRandom(17);
        int[][] spreads = {{1, 1, 1, 1}, {2, 1, 1, 1}, {2, 2, 1, 1}, {2, 2, 2, 1}, {2, 2, 2, 2}, {3, 1, 1, 1}, {3, 2, 1, 1}};
        List<Long> stored = new ArrayList<>();
        long[] probes = new long[40];
        for (int q = 0; q < probes.length; q++) {
            probes[q] = rnd.nextLong();
            for (int[] spread : spreads) {
                for (int rotation = 0; rotation < BlockTables.TABLES; rotation++) {
                    long fp = probes[q];
                    for (int t = 0; t < BlockTables.TABLES; t++) {
                        fp = BitFlips.flipInBlock(fp, (t + rotation) % BlockTables.TABLES, spread[t], rnd);
                    }
                    stored.add(fp);
                }
            }
        }
        long[] fps = stored.stream().mapToLong(Long::longValue).toArray();
        String[] ids = new String[fps.length];
        for (int i = 0; i < fps.length; i++) {
            ids[i] = "s" + i;
        }
        local.insert(C, Window.FOREVER, ids, fps);
        for (int k = 4; k <= BlockTables.MAX_NEIGHBOUR_DISTANCE; k++) {
            List<IndexRouter.Nearest> got = local.query(C, Window.FOREVER, probes, k, 0);
            List<IndexRouter.Nearest> fannedOut = fanout.query(C, Window.FOREVER, probes, k, 0);
            for (int q = 0; q < probes.length; q++) {
                TreeSet<String> expected = new TreeSet<>();
                for (int i = 0; i < fps.length; i++) {
                    if (Hamming.distance(fps[i], probes[q]) <= k) {
                        expected.add(ids[i]);
                    }
                }
                TreeSet<String> found = new TreeSet<>();
                got.get(q).hits().forEach(h -> found.add(h.id()));
                assertFalse(expected.isEmpty(), "k=" + k + ": some planted within");
                assertEquals(expected, found, "k=" + k + ", probe " + q);
                assertEquals(fannedOut.get(q), got.get(q), "k=" + k + ", probe " + q + ": the fan-out's hits");
            }
        }
    }


    @Test
    void edges_3In4Out() {
        long stored = 0x0123_4567_89ab_cdefL;
        local.insert(C, Window.FOREVER, new String[]{"x"}, new long[]{stored});
        SplittableRandom rnd = new SplittableRandom(5);
        for (int d = 0; d <= 5; d++) {
            long probe = BitFlips.flip(stored, d, rnd);
            List<IndexRouter.Hit> hits = local.query(C, Window.FOREVER, new long[]{probe}, 3, 0).get(0).hits();
            assertEquals(d <= 3 ? List.of(new IndexRouter.Hit("x", stored, d)) : List.of(), hits, "planted at " + d);
        }
    }

    @Test
    void idInTwoGenerations_countsOnceAtTheNewest() {
        long a = 0x00ff_00ff_00ff_00ffL;
        long b = a ^ 0b11;
        local.insert(C, new Window(0, new long[]{0}), new String[]{"m", "other"}, new long[]{a, a});
        local.insert(C, TWO_GENERATIONS, new String[]{"m"}, new long[]{b});
        // A move half done: "m" attached to a in generation 0 again, as a crash between the
        // steps of a re-bind leaves it.
        nodes.get(placement.ownerOfFingerprint(a)).attachIds(C, 0, new long[]{a}, new String[]{"m"});
        long probe = a ^ 0b100;
        List<IndexRouter.Hit> hits = local.query(C, TWO_GENERATIONS, new long[]{probe}, 3, 0).get(0).hits();
        assertEquals(List.of(new IndexRouter.Hit("other", a, 1), new IndexRouter.Hit("m", b, 3)), hits);
        assertEquals(fanout.query(C, TWO_GENERATIONS, new long[]{probe}, 3, 0).get(0).hits(), hits);
    }
}
