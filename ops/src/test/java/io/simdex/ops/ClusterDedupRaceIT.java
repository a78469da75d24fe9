package io.simdex.ops;

import com.google.protobuf.UInt32Value;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.simdex.proto.v1.CollectionSettings;
import io.simdex.proto.v1.CreateCollectionRequest;
import io.simdex.proto.v1.ListCollectionsRequest;
import io.simdex.proto.v1.Probe;
import io.simdex.proto.v1.QueryRequest;
import io.simdex.proto.v1.QueryResult;
import io.simdex.proto.v1.SimdexGrpc;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Dedup stays serial with routers in separate processes calling three node processes over
 * gRPC (R=2, W=1), on a collection with retention created just before: two routers race, then
 * router-2 is killed -9 amid its Dedups (the bucket locks it held expire with its lease, set to 10 s), then
 * a node is killed -9 amid Dedups. Router-2 runs with its own clock two hours ahead (a test-only
 * flag): generations follow the nodes' clocks, so its decisions see router-1's documents.
 * Checked against a serial replay ({@link DedupReplay}) and, at the end, by querying every group.
 */
class ClusterDedupRaceIT {
    /** Router-2's bucket lock lease (dedup.lease.millis, a third of the default). */
    private static final Duration LEASE = Duration.ofSeconds(10);
    private static final long CLOCK_AHEAD_SECONDS = 7200;
    /** What a router logs of the Dedup calls cut short that a call found ({@code IndexRouter}). */
    private static final Pattern CUT_SHORT = Pattern.compile("found (\\d+) Dedup calls cut short: stored (\\d+) documents.*?, dropped (\\d+)");
    private static final CollectionSettings HOURLY = CollectionSettings.newBuilder().setRetentionSeconds(3600).setGenerationSeconds(600).build();

    @TempDir
    Path dir;

    @Test
    void dedup_twoRouterProcesses_raceThenRouterKillThenNodeKill_equalsSerialReplay() throws Exception {
        try (ProcessCluster cluster = new ProcessCluster(dir, 3)) {
            String ahead = cluster.addRouter(List.of("-D" + "simdex.test.clockOffsetSeconds=" + CLOCK_AHEAD_SECONDS),
                    "dedup.lease.millis=" + LEASE.toMillis() + "\n");
            cluster.startFounders();
            cluster.launch(ahead);
            cluster.awaitServing(ahead);
            ManagedChannel one = cluster.channel();
            ManagedChannel two = NettyChannelBuilder.forAddress("127.0.0.1", cluster.routerPort(ahead)).usePlaintext().build();
            try {
                SimdexGrpc.newBlockingStub(one).createCollection(CreateCollectionRequest.newBuilder().setName(DedupRace.COLLECTION)
                        .setSettings(HOURLY).build());
                Await.until("router-2 lists the new collection", Duration.ofSeconds(60),
                        () -> SimdexGrpc.newBlockingStub(two).listCollections(ListCollectionsRequest.getDefaultInstance()).getCollectionsList(),
                        list -> list.stream().anyMatch(c -> c.getName().equals(DedupRace.COLLECTION)), () -> "");
                List<DedupRace.Doc> docs = DedupRace.tightGroups(500, new SplittableRandom(11));
                DedupRace race = new DedupRace(List.of(one, two));

                race.run(docs.subList(0, 1000));
                assertEquals(List.of(), race.failures(), "no faults yet, and the collection was created just before: nothing fails");

                race.routeTo(List.of(two));
                DedupRace.Running killed = race.start(docs.subList(1000, 1400));
                killed.awaitDecided(130, cluster);
                cluster.process(ahead).kill9();
                long killedAt = System.nanoTime();
                race.routeTo(List.of(one));
                killed.await();
                Duration recovered = Duration.ofNanos(System.nanoTime() - killedAt);
                int[] cut = cutShort(cluster.process("router-1").output());
                System.out.printf("[dedup race] router kill: %d calls lost, every document decided %d ms after the kill;"
                                + " router-1 found %d calls cut short, stored %d of their documents and dropped %d%n",
                        race.failures().size(), recovered.toMillis(), cut[0], cut[1], cut[2]);
                assertTrue(race.failures().size() > 0, "the kill hit Dedups in flight");
                // Calls waiting for the killed router's keys get them as its lease ends: its lock
                // calls still waiting on the nodes end with it, rather than take the keys once free
                // and hold them a lease more (past this bound). Under the default lease (30 s) the
                // locks alone would hold the last calls past it too.
                assertTrue(recovered.compareTo(LEASE.plus(Duration.ofSeconds(8))) < 0,
                        "locks of the killed router free within its configured lease: " + recovered.toMillis() + " ms");

                int failedBefore = race.failures().size();
                DedupRace.Running nodeKill = race.start(docs.subList(1400, 2000));
                nodeKill.awaitDecided(200, cluster);
                cluster.process("node-3").kill9();
                nodeKill.await();
                System.out.printf("[dedup race] node kill: %d calls failed and were retried%n", race.failures().size() - failedBefore);

                DedupReplay.assertSerial(race.decisions(), race.uncertain(), docs.size() / 4);
                assertStoredOnePerGroup(one, docs, race);
                assertTrue(cluster.process(ahead).output().contains("s ahead of its nodes'"), "router-2 ran with its clock ahead");
            } finally {
                two.shutdownNow();
            }
        }
    }

    /** Summed over a router's log: Dedup calls found cut short, their documents stored, and those dropped. */
    private static int[] cutShort(String log) {
        int[] sum = new int[3];
        Matcher m = CUT_SHORT.matcher(log);
        while (m.find()) {
            for (int i = 0; i < sum.length; i++) {
                sum[i] += Integer.parseInt(m.group(i + 1));
            }
        }
        return sum;
    }

    /** Every group's centre finds exactly its group's kept document (Stats would need every node, and one is down). */
    private static void assertStoredOnePerGroup(ManagedChannel router, List<DedupRace.Doc> docs, DedupRace race) {
        SimdexGrpc.SimdexBlockingStub stub = SimdexGrpc.newBlockingStub(router);
        Set<String> kept = race.decisions().stream().filter(d -> d.getInserted()).map(d -> d.getId()).collect(Collectors.toSet());
        for (int from = 0; from < docs.size(); from += 400) {
            QueryRequest.Builder q = QueryRequest.newBuilder().setCollection(DedupRace.COLLECTION).setMaxDistance(UInt32Value.of(DedupRace.K));
            List<DedupRace.Doc> centres = new ArrayList<>();
            for (int i = from; i < from + 400; i += 4) {
                centres.add(docs.get(i));
                q.addProbes(Probe.newBuilder().setFingerprint(docs.get(i).fp()));
            }
            List<QueryResult> results = stub.query(q.build()).getResultsList();
            for (int g = 0; g < centres.size(); g++) {
                List<String> found = results.get(g).getMatchesList().stream().map(m -> m.getId()).toList();
                assertEquals(1, found.size(), "group of " + centres.get(g).id() + " stores " + found);
                assertTrue(kept.contains(found.get(0)), found.get(0) + " is stored but was not reported kept");
            }
        }
    }
}
