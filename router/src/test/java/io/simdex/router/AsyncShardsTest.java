package io.simdex.router;

import io.simdex.fingerprint.BitFlips;
import io.simdex.fingerprint.Hamming;
import io.simdex.router.index.IndexRouter;
import io.simdex.router.index.Window;
import io.simdex.router.shard.Found;
import io.simdex.router.shard.Ids;
import io.simdex.router.shard.LocalShardClient;
import io.simdex.router.shard.Placement;
import io.simdex.router.shard.Previous;
import io.simdex.router.shard.ShardClient;
import io.simdex.server.ShardNode;
import io.simdex.server.store.StoreSizing;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The router with shards that answer later, on other threads, as remote shards do: every
 * result must still be merged before the router uses it.
 */
class AsyncShardsTest {
    @TempDir
    Path dir;

    @Test
    void query_shardsAnsweringOnOtherThreads_matchesBruteForce() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        List<ShardClient> shards = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            shards.add(new LateShard(new ShardNode(dir.resolve("s" + i), c -> StoreSizing.forShare(50_000, 4, 8)), pool));
        }
        try (IndexRouter index = new IndexRouter(shards, Placement.roundRobin(4))) {
            SplittableRandom rnd = new SplittableRandom(3);
            int n = 20_000;
            long[] fps = rnd.longs(n).toArray();
            String[] ids = new String[n];
            for (int i = 0; i < n; i++) {
                ids[i] = "d" + i;
            }
            index.insert("c", Window.FOREVER, ids, fps);
            long[] probes = new long[120];
            for (int i = 0; i < probes.length; i++) {
                probes[i] = BitFlips.flip(fps[rnd.nextInt(n)], i % 6, rnd);
            }
            List<List<IndexRouter.Hit>> hits = index.query("c", Window.FOREVER, probes, 3, 0).stream().map(IndexRouter.Nearest::hits).toList();
            for (int q = 0; q < probes.length; q++) {
                TreeSet<String> expected = new TreeSet<>();
                for (int i = 0; i < n; i++) {
                    if (Hamming.distance(fps[i], probes[q]) <= 3) {
                        expected.add(ids[i]);
                    }
                }
                TreeSet<String> got = new TreeSet<>();
                hits.get(q).forEach(h -> got.add(h.id()));
                assertEquals(expected, got, "probe " + q);
            }
        } finally {
            pool.shutdown();
            pool.awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    /** A local shard whose answers arrive a moment later on a pool thread. */
    private static final class LateShard extends LocalShardClient {
        private final ExecutorService pool;

        LateShard(ShardNode node, ExecutorService pool) {
            super(node);
            this.pool = pool;
        }

        /** Not called in the caller's thread: the router must take its fan-out path. */
        @Override
        public ShardNode inCallingThread() {
            return null;
        }

        /** Completes on a pool thread; continuations given to thenAccept start 5 ms late, widening any race. */
        private <T> CompletableFuture<T> later(CompletableFuture<T> answer) {
            SlowCallbacks<T> out = new SlowCallbacks<>();
            pool.execute(() -> {
                pause(1);
                answer.whenComplete((v, e) -> {
                    if (e != null) {
                        out.completeExceptionally(e);
                    } else {
                        out.complete(v);
                    }
                });
            });
            return out;
        }

        @Override
        public CompletableFuture<Found[]> probe(String c, long[] g, int t, long[] f, int k) {
            return later(super.probe(c, g, t, f, k));
        }

        @Override
        public CompletableFuture<Previous> bindIds(String c, long g, String[] i, long[] f) {
            return later(super.bindIds(c, g, i, f));
        }

        @Override
        public CompletableFuture<Ids[]> resolveIds(String c, long[] g, long[] f, int limit) {
            return later(super.resolveIds(c, g, f, limit));
        }

        @Override
        public CompletableFuture<boolean[]> attachIds(String c, long g, long[] f, String[] i) {
            return later(super.attachIds(c, g, f, i));
        }
    }

    /** A future whose thenAccept continuations start late. */
    private static final class SlowCallbacks<T> extends CompletableFuture<T> {
        @Override
        public CompletableFuture<Void> thenAccept(java.util.function.Consumer<? super T> action) {
            return super.thenAccept(v -> {
                pause(5);
                action.accept(v);
            });
        }
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
