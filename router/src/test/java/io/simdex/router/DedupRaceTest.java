package io.simdex.router;

import com.google.protobuf.UInt32Value;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.simdex.fingerprint.BitFlips;
import io.simdex.fingerprint.Hamming;
import io.simdex.proto.v1.DedupRequest;
import io.simdex.proto.v1.DedupResponse;
import io.simdex.proto.v1.DedupResult;
import io.simdex.proto.v1.Match;
import io.simdex.proto.v1.SimdexGrpc;
import io.simdex.proto.v1.StatsRequest;
import io.simdex.router.api.Catalog;
import io.simdex.router.api.SimdexService;
import io.simdex.router.index.IndexRouter;
import io.simdex.router.shard.LocalShardClient;
import io.simdex.router.shard.Placement;
import io.simdex.router.shard.ShardClient;
import io.simdex.router.transport.PublicServer;
import io.simdex.server.ShardNode;
import io.simdex.server.store.StoreSizing;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Several routers, many clients, groups of near-duplicates submitted at the same time: the kept
 * set must be what a serial replay in the system's chosen order keeps.
 */
class DedupRaceTest {
    private static final int ROUTERS = 3;
    private static final int CLIENTS = 12;
    private static final int K = 3;

    @TempDir
    Path dir;

    @Test
    void dedup_concurrentNearDuplicatesThroughSeveralRouters_equalsSerialReplay() throws Exception {
        concurrentDedupEqualsSerialReplay(400, 1, 4);
    }

    /** Requests of more documents than a lock group, so that groups of concurrent requests interleave. */
    @Test
    void dedup_concurrentRequestsOfManyLockGroups_equalsSerialReplay() throws Exception {
        concurrentDedupEqualsSerialReplay(1_200, 100, 300);
    }

    private void concurrentDedupEqualsSerialReplay(int groups, int minPerRequest, int maxPerRequest) throws Exception {
        List<ShardNode> nodes = new ArrayList<>();
        Placement placement = Placement.roundRobin(4);
        for (int i = 0; i < 4; i++) {
            nodes.add(new ShardNode(dir.resolve("shard-" + i), c -> StoreSizing.forShare(100_000, 4, 16)));
        }
        List<PublicServer> servers = new ArrayList<>();
        List<ManagedChannel> channels = new ArrayList<>();
        try {
            for (int r = 0; r < ROUTERS; r++) {
                // Each router is independent: its own IndexRouter and catalog, sharing only the shards.
                List<ShardClient> clients = nodes.stream().map(SharedLocalShard::new).collect(Collectors.toList());
                SimdexService service = new SimdexService(new IndexRouter(clients, placement),
                        new Catalog(dir.resolve("router-" + r)), java.time.Clock.systemUTC());
                PublicServer server = PublicServer.start("127.0.0.1", 0, service, SimdexGrpc.SERVICE_NAME);
                servers.add(server);
                channels.add(NettyChannelBuilder.forAddress("127.0.0.1", server.port()).usePlaintext().build());
            }

            List<Doc> docs = groupsOfNearDuplicates(groups, new SplittableRandom(5));
            ConcurrentLinkedQueue<DedupResult> results = submitConcurrently(docs, channels, minPerRequest, maxPerRequest);

            assertEquals(docs.size(), results.size());
            List<DedupResult> kept = results.stream().filter(DedupResult::getInserted).toList();
            for (int i = 0; i < kept.size(); i++) {
                for (int j = i + 1; j < kept.size(); j++) {
                    assertTrue(Hamming.distance(kept.get(i).getFingerprint(), kept.get(j).getFingerprint()) > K,
                            "kept " + kept.get(i).getId() + " and " + kept.get(j).getId() + " are near-duplicates");
                }
            }
            assertSerialReplayAgrees(new ArrayList<>(results));
            long stored = SimdexGrpc.newBlockingStub(channels.get(0)).stats(StatsRequest.getDefaultInstance()).getDocuments();
            assertEquals(kept.size(), stored, "exactly the kept documents are stored");
            assertTrue(kept.size() < docs.size() / 2, "groups collapsed: " + kept.size() + " of " + docs.size());
        } finally {
            for (ManagedChannel ch : channels) {
                ch.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            }
            servers.forEach(PublicServer::close);
            nodes.forEach(ShardNode::close);
        }
    }

    /** Replays decisions one at a time in sequence order and checks each against the actual one. */
    private static void assertSerialReplayAgrees(List<DedupResult> results) {
        results.sort(Comparator.comparingLong(DedupResult::getSequence));
        Map<String, Long> keptSoFar = new HashMap<>();
        for (DedupResult r : results) {
            Set<String> near = keptSoFar.entrySet().stream()
                    .filter(e -> Hamming.distance(e.getValue(), r.getFingerprint()) <= K)
                    .map(Map.Entry::getKey).collect(Collectors.toSet());
            assertEquals(near.isEmpty(), r.getInserted(), () -> r.getId() + " at sequence " + r.getSequence()
                    + ": serial replay says " + (near.isEmpty() ? "keep" : "duplicate of " + near));
            Set<String> named = r.getDuplicatesList().stream().map(Match::getId).collect(Collectors.toSet());
            assertEquals(near, named, () -> r.getId() + " names what was kept before it");
            if (r.getInserted()) {
                keptSoFar.put(r.getId(), r.getFingerprint());
            }
        }
    }

    private static ConcurrentLinkedQueue<DedupResult> submitConcurrently(List<Doc> docs, List<ManagedChannel> channels, int minPerRequest,
                                                                         int maxPerRequest) throws Exception {
        List<Doc> shuffled = new ArrayList<>(docs);
        Collections.shuffle(shuffled, new java.util.Random(6));
        ConcurrentLinkedQueue<Doc> queue = new ConcurrentLinkedQueue<>(shuffled);
        ConcurrentLinkedQueue<DedupResult> results = new ConcurrentLinkedQueue<>();
        ExecutorService pool = Executors.newFixedThreadPool(CLIENTS);
        List<Future<?>> futures = new ArrayList<>();
        for (int c = 0; c < CLIENTS; c++) {
            int client = c;
            futures.add(pool.submit(() -> {
                SplittableRandom rnd = new SplittableRandom(client);
                while (true) {
                    DedupRequest.Builder req = DedupRequest.newBuilder().setMaxDistance(UInt32Value.of(K));
                    for (int n = minPerRequest + rnd.nextInt(maxPerRequest - minPerRequest + 1); n > 0; n--) {
                        Doc d = queue.poll();
                        if (d != null) {
                            req.addDocuments(Calls.doc(d.id, d.fp));
                        }
                    }
                    if (req.getDocumentsCount() == 0) {
                        return null;
                    }
                    ManagedChannel ch = channels.get(rnd.nextInt(channels.size()));
                    DedupResponse r = SimdexGrpc.newBlockingStub(ch).withDeadlineAfter(60, TimeUnit.SECONDS).dedup(req.build());
                    results.addAll(r.getResultsList());
                }
            }));
        }
        for (Future<?> f : futures) {
            f.get(5, TimeUnit.MINUTES);
        }
        pool.shutdown();
        return results;
    }

    /** Groups of a centre and 3..5 variants within distance 3 of it (so often within 6 of each other). */
    private static List<Doc> groupsOfNearDuplicates(int groups, SplittableRandom rnd) {
        List<Doc> docs = new ArrayList<>();
        for (int g = 0; g < groups; g++) {
            long centre = rnd.nextLong();
            docs.add(new Doc("g" + g + "-0", centre));
            for (int v = 1, n = 3 + rnd.nextInt(3); v <= n; v++) {
                docs.add(new Doc("g" + g + "-" + v, BitFlips.flip(centre, 1 + rnd.nextInt(K), rnd)));
            }
        }
        return docs;
    }

    private record Doc(String id, long fp) {
    }

    /** A local shard several routers share: closing a router must not close the shared node. */
    private static final class SharedLocalShard extends LocalShardClient {
        SharedLocalShard(ShardNode node) {
            super(node);
        }

        @Override
        public void close() {
        }
    }
}
