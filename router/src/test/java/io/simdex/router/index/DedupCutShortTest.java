package io.simdex.router.index;

import io.simdex.fingerprint.BlockTables;
import io.simdex.fingerprint.Hamming;
import io.simdex.router.shard.LocalShardClient;
import io.simdex.router.shard.Placement;
import io.simdex.router.shard.ReplicaSet;
import io.simdex.router.shard.ShardClient;
import io.simdex.server.ShardNode;
import io.simdex.server.store.StoreSizing;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongPredicate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A Dedup cut short between its writes (a shard failing, its router killed) leaves a document
 * in some tables and not in others. The next Dedup near it must still find it, and the first
 * caller's retry must then report it stored: one of the two is kept, as in a serial replay.
 */
class DedupCutShortTest {
    private static final String C = "c";
    private static final int K = 3;
    /** The shard whose bucket additions fail while {@link #cut} is set. */
    private static final int FAILING = 1;

    @TempDir
    Path dir;

    private final List<ShardNode> nodes = new ArrayList<>();
    private final List<ShardClient> clients = new ArrayList<>();
    private final AtomicBoolean cut = new AtomicBoolean();
    private final Placement placement = Placement.roundRobin(3);
    private final SplittableRandom rnd = new SplittableRandom(5);

    @AfterEach
    void close() {
        nodes.forEach(ShardNode::close);
    }

    @Test
    void dedup_insertCutAfterSomeTables_nextNearDocumentIsItsDuplicate_retryReportsItStored() {
        try (IndexRouter index = new IndexRouter(shards(), placement)) {
            long[] pair = partlyStoredPair();
            long x = pair[0];
            long y = pair[1];
            cut.set(true);
            assertThrows(RuntimeException.class, () -> index.dedup(C, Window.FOREVER, new String[]{"x"}, new long[]{x}, K));
            assertEquals(List.of("x"), ids(index.query(C, Window.FOREVER, new long[]{x}, 0, 0).get(0)),
                    "x is in the tables the failing shard does not own");
            assertEquals(List.of(), ids(index.query(C, Window.FOREVER, new long[]{y}, K, 0).get(0)),
                    "and not in those it shares with y");
            cut.set(false);
            long calls = CutShortDedups.calls();
            long documents = CutShortDedups.documents();

            IndexRouter.Decision yDecision = index.dedup(C, Window.FOREVER, new String[]{"y"}, new long[]{y}, K).get(0);
            assertEquals(false, yDecision.inserted(), "y is decided after x, which its call had decided kept");
            assertEquals(List.of("x"), yDecision.duplicates().stream().map(IndexRouter.Hit::id).toList());
            assertEquals(1, CutShortDedups.calls() - calls, "counted for the metrics");
            assertEquals(1, CutShortDedups.documents() - documents);
            assertTrue(index.dedup(C, Window.FOREVER, new String[]{"x"}, new long[]{x}, K).get(0).inserted(), "the retry finds x stored");
            assertEquals(List.of("x"), ids(index.query(C, Window.FOREVER, new long[]{y}, K, 0).get(0)), "x alone is stored, in every table");
            for (int t = 0; t < BlockTables.TABLES; t++) {
                long alone = x ^ otherBlocksBit(t);
                assertEquals(List.of("x"), ids(index.query(C, Window.FOREVER, new long[]{alone}, K, 0).get(0)), "table " + t);
            }
        }
    }

    @Test
    void dedup_holderDiedAfterItsIntent_nextHolderStoresItsDocumentsOnceTheLeaseEnds() {
        try (IndexRouter index = new IndexRouter(shards(), placement)) {
            long x = rnd.nextLong();
            long y = x ^ 0b11L;
            // A call that locked x's keys with a short lease, left its intent and died before any write.
            long token = 99;
            int[] keys = DedupLocks.bucketKeys(new long[]{x}, K);
            for (int key : keys) {
                ShardClient owner = ownerOf(key);
                long stamp = owner.lockBuckets(C, new int[]{key}, token, 300, 1_000).join().stamp();
                assertEquals(1, owner.recordIntent(C, new int[]{key}, token, stamp + 1,
                        DedupIntents.encode(token, K, new String[]{"x"}, new long[]{x}, null, new int[]{0})).join());
            }

            IndexRouter.Decision yDecision = index.dedup(C, Window.FOREVER, new String[]{"y"}, new long[]{y}, K).get(0);
            assertEquals(false, yDecision.inserted());
            assertEquals(List.of("x"), yDecision.duplicates().stream().map(IndexRouter.Hit::id).toList());
            for (int key : keys) {
                assertEquals(List.of(), ownerOf(key).lockBuckets(C, new int[]{key}, 100, 1_000, 1_000).join().pending(), "settled everywhere");
                ownerOf(key).unlockBuckets(C, new int[]{key}, 100, 0).join();
            }
        }
    }

    @Test
    void dedup_nodesRestartedAfterAHolderLeftItsIntent_nextCallNearItStoresItFirst() {
        long x = rnd.nextLong();
        long y = x ^ 0b110L;
        try (IndexRouter index = new IndexRouter(shards(), placement)) {
            for (int key : DedupLocks.bucketKeys(new long[]{x}, K)) {
                long stamp = ownerOf(key).lockBuckets(C, new int[]{key}, 42, 60_000, 1_000).join().stamp();
                ownerOf(key).recordIntent(C, new int[]{key}, 42, stamp + 1, DedupIntents.encode(42, K, new String[]{"x"}, new long[]{x}, null,
                        new int[]{0})).join();
            }
            // Killed with its locks held (a clean close forgets them as a kill does); the intents are on disk.
        }
        nodes.clear();
        clients.clear();
        try (IndexRouter index = new IndexRouter(shards(), placement)) {
            IndexRouter.Decision yDecision = index.dedup(C, Window.FOREVER, new String[]{"y"}, new long[]{y}, K).get(0);
            assertEquals(false, yDecision.inserted(), "the restarted nodes hand x's intent to y's call, no lease to wait for");
            assertEquals(List.of("x"), yDecision.duplicates().stream().map(IndexRouter.Hit::id).toList());
        }
    }

    @Test
    void dedup_holderDiedWhileLeavingItsIntent_documentIsDroppedNotStoredBesideTheNearOneDecidedWithoutIt() {
        try (IndexRouter index = new IndexRouter(shards(), placement)) {
            // x and y share the blocks of tables 2 and 3, whose keys the intent never reached.
            long x;
            while (true) {
                x = rnd.nextLong();
                int reached = owner(x, 0);
                if (owner(x, 2) != reached && owner(x, 3) != reached) {
                    break;
                }
            }
            long y = x ^ bitOnlyIn(0) ^ bitOnlyIn(1);
            int reached = owner(x, 0);
            // A call that locked x's keys with a short lease and died after leaving its intent on one shard.
            long call = 77;
            for (int key : DedupLocks.bucketKeys(new long[]{x}, K)) {
                int s = ownerIndex(key);
                long token = call + s;
                long stamp = clients.get(s).lockBuckets(C, new int[]{key}, token, 300, 1_000).join().stamp();
                if (s == reached) {
                    assertEquals(1, clients.get(s).recordIntent(C, new int[]{key}, token, stamp + 1,
                            DedupIntents.encode(call, K, new String[]{"x"}, new long[]{x}, null, new int[]{0})).join());
                }
            }
            long dropped = CutShortDedups.dropped();

            assertTrue(index.dedup(C, Window.FOREVER, new String[]{"y"}, new long[]{y}, K).get(0).inserted(),
                    "y's keys hold no intent: x was never written");
            IndexRouter.Decision xRetry = index.dedup(C, Window.FOREVER, new String[]{"x"}, new long[]{x}, K).get(0);
            assertEquals(false, xRetry.inserted(), "x's intent is dropped, not stored beside y");
            assertEquals(List.of("y"), xRetry.duplicates().stream().map(IndexRouter.Hit::id).toList());
            assertEquals(1, CutShortDedups.dropped() - dropped, "counted for the metrics");
            assertEquals(List.of("y"), ids(index.query(C, Window.FOREVER, new long[]{x}, K, 0).get(0)));
            assertEquals(List.of(), clients.get(reached).lockBuckets(C, new int[]{BlockTables.bucketKey(0, BlockTables.block(x, 0))}, 5, 1_000,
                    1_000).join().pending(), "settled");
        }
    }

    /**
     * Over replica sets each node serves two of the three shards, both written by the call:
     * it keeps their intents apart.
     */
    @ParameterizedTest(name = "replica sets of 2 of 3 nodes: {0}")
    @ValueSource(booleans = {false, true})
    void dedup_callCutShortStoringTwoDocuments_nextCallNearOneSettlesItsShardsOnly_theOtherIsStoredBeforeItsNeighbour(boolean replicated) {
        List<ShardClient> shards = shards();
        try (IndexRouter index = replicated ? new IndexRouter(replicaSets(shards), placement, List.copyOf(shards), 2, false)
                : new IndexRouter(shards, placement)) {
            // d1 and its neighbour y1 have every key on shard 0; d2 none there, its tables 2
            // and 3 on shard 1, whose writes fail (y2 shares those blocks with it), and table 0
            // or 1 on shard 2, whose writes do not (over replica sets, shard 0's fail too).
            long d1 = fingerprintWhere(fp -> ownersOf(fp) == 1 && ownersOf(fp ^ bitOnlyIn(0)) == 1);
            long y1 = d1 ^ bitOnlyIn(0);
            long d2 = fingerprintWhere(fp -> (ownersOf(fp) & 1) == 0 && owner(fp, 2) == 1 && owner(fp, 3) == 1
                    && (owner(fp, 0) == 2 || owner(fp, 1) == 2));
            long y2 = d2 ^ bitOnlyIn(0) ^ bitOnlyIn(1);
            cut.set(true);
            assertThrows(RuntimeException.class, () -> index.dedup(C, Window.FOREVER, new String[]{"d1", "d2"}, new long[]{d1, d2}, K));
            cut.set(false);
            assertEquals(List.of(), ids(index.query(C, Window.FOREVER, new long[]{y2}, K, 0).get(0)), "d2 is not where y2 looks");

            IndexRouter.Decision first = index.dedup(C, Window.FOREVER, new String[]{"y1"}, new long[]{y1}, K).get(0);
            assertEquals(List.of("d1"), first.duplicates().stream().map(IndexRouter.Hit::id).toList());
            IndexRouter.Decision second = index.dedup(C, Window.FOREVER, new String[]{"y2"}, new long[]{y2}, K).get(0);
            assertEquals(false, second.inserted(), "d2's intent outlived the settling of d1's shard");
            assertEquals(List.of("d2"), second.duplicates().stream().map(IndexRouter.Hit::id).toList());
            assertTrue(index.dedup(C, Window.FOREVER, new String[]{"d2"}, new long[]{d2}, K).get(0).inserted(), "the retry finds d2 stored");
        }
    }

    /** Shard g kept by nodes g and g + 1, writes acknowledged by both (a failing node fails them). */
    private static List<ShardClient> replicaSets(List<ShardClient> nodes) {
        List<ShardClient> groups = new ArrayList<>();
        for (int g = 0; g < nodes.size(); g++) {
            int a = g;
            int b = (g + 1) % nodes.size();
            groups.add(new ReplicaSet(List.of(nodes.get(a), nodes.get(b)), new int[]{a, b}, List.of(), new int[0], 2, x -> true,
                    x -> true, 0, 0, node -> CompletableFuture.completedFuture(null)));
        }
        return groups;
    }

    /** A random fingerprint that {@code test} accepts. */
    private long fingerprintWhere(LongPredicate test) {
        while (true) {
            long fp = rnd.nextLong();
            if (test.test(fp)) {
                return fp;
            }
        }
    }

    /** The shards that own fp's buckets, as bits. */
    private int ownersOf(long fp) {
        int bits = 0;
        for (int t = 0; t < BlockTables.TABLES; t++) {
            bits |= 1 << owner(fp, t);
        }
        return bits;
    }

    private int ownerIndex(int key) {
        return placement.ownerOfBucket(key >>> BlockTables.BLOCK_BITS, key & (BlockTables.KEYS_PER_TABLE - 1));
    }

    private ShardClient ownerOf(int key) {
        return clients.get(ownerIndex(key));
    }

    private List<ShardClient> shards() {
        List<ShardClient> shards = clients;
        for (int i = 0; i < 3; i++) {
            ShardNode node = new ShardNode(dir.resolve("s" + i), c -> StoreSizing.forShare(10_000, 3, 8));
            nodes.add(node);
            boolean failing = i == FAILING;
            shards.add(new LocalShardClient(node) {
                @Override
                public CompletableFuture<Integer> bucketAddMany(String c, long g, int[] tables, long[][] fps, boolean[] fresh) {
                    return failing && cut.get() ? CompletableFuture.failedFuture(new IllegalStateException("cut in the bucket adds"))
                            : super.bucketAddMany(c, g, tables, fps, fresh);
                }

                @Override
                public CompletableFuture<Integer> bucketAdd(String c, long g, int table, long[] fps, boolean fresh) {
                    return failing && cut.get() ? CompletableFuture.failedFuture(new IllegalStateException("cut in the bucket adds"))
                            : super.bucketAdd(c, g, table, fps, fresh);
                }
            });
        }
        return shards;
    }

    /**
     * x and y 2 bits apart, in the blocks of tables 0 and 1, where the failing shard owns x's
     * buckets of tables 2 and 3 (the blocks they share) and not both of the others: cut there,
     * x is stored where y cannot find it.
     */
    private long[] partlyStoredPair() {
        while (true) {
            long x = rnd.nextLong();
            boolean sharedOnFailing = owner(x, 2) == FAILING && owner(x, 3) == FAILING;
            if (sharedOnFailing && (owner(x, 0) != FAILING || owner(x, 1) != FAILING)) {
                long y = x ^ bitOnlyIn(0) ^ bitOnlyIn(1);
                assertEquals(2, Hamming.distance(x, y));
                return new long[]{x, y};
            }
        }
    }

    private int owner(long fp, int table) {
        return placement.ownerOfBucket(table, BlockTables.block(fp, table));
    }

    /** A bit that changes table {@code t}'s block and no other. */
    private static long bitOnlyIn(int t) {
        for (int b = 0; b < 64; b++) {
            long bit = 1L << b;
            int changed = 0;
            for (int u = 0; u < BlockTables.TABLES; u++) {
                changed += BlockTables.block(0L, u) != BlockTables.block(bit, u) ? 1 << u : 0;
            }
            if (changed == 1 << t) {
                return bit;
            }
        }
        throw new AssertionError("no bit of table " + t + " alone");
    }

    /** Bits in every block but table {@code t}'s: x moved by them is found only through table t (distance 3). */
    private static long otherBlocksBit(int t) {
        long bits = 0;
        for (int u = 0; u < BlockTables.TABLES; u++) {
            if (u != t) {
                bits |= bitOnlyIn(u);
            }
        }
        return bits;
    }

    private static List<String> ids(IndexRouter.Nearest n) {
        return n.hits().stream().map(IndexRouter.Hit::id).toList();
    }
}
