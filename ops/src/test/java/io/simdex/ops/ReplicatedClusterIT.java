package io.simdex.ops;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.simdex.client.SimdexAdmin;
import io.simdex.core.Partitions;
import io.simdex.fingerprint.BitFlips;
import io.simdex.fingerprint.BlockTables;
import io.simdex.fingerprint.Hamming;
import io.simdex.ops.cluster.InSyncStamp;
import io.simdex.proto.v1.DeleteRequest;
import io.simdex.proto.v1.Document;
import io.simdex.proto.v1.InsertRequest;
import io.simdex.proto.v1.Member;
import io.simdex.proto.v1.MoveProgress;
import io.simdex.proto.v1.NodeShare;
import io.simdex.proto.v1.PlacementResponse;
import io.simdex.proto.v1.Probe;
import io.simdex.proto.v1.QueryRequest;
import io.simdex.proto.v1.QueryResponse;
import io.simdex.proto.v1.ShardGrpc;
import io.simdex.proto.v1.ShardProbeRequest;
import io.simdex.proto.v1.ShardProbeResponse;
import io.simdex.proto.v1.ShardResolveRequest;
import io.simdex.proto.v1.ShardResolveResponse;
import io.simdex.proto.v1.SimdexGrpc;
import io.simdex.proto.v1.StatsRequest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer.OrderAnnotation;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The cluster issue's acceptance test, in real processes on loopback with real Atomix: three
 * founding nodes with R=2 (W=1) and a router, started once for the class; {@link #LOADED}
 * fingerprints (50,000; {@code -Dsimdex.it.documents=1000000} for the figures CAPACITY.md cites); a
 * node SIGKILLed while a writer and a reader run; its restart and catch-up (checked by then
 * killing its partner, so the restarted node alone serves the partitions they share); that
 * partner's restart, which missed nothing and serves without a pull; a node
 * SIGSTOPped past the call timeout, which misses writes without restarting and must be
 * reported, catch up and hold them all; a fourth node added and the partitions rebalanced while
 * the reader and writer run; then SIGKILLed, drained while down and removed; then started again
 * with the data it had and added again, which must not bring back what was deleted meanwhile,
 * nor keep what it no longer serves. Every query must
 * give exactly the brute-force answer, and every acknowledged write must be found at the end.
 *
 * <p>Each phase is its own test, run in order. A phase that needs a state an earlier phase
 * failed to reach is aborted by an assumption naming that state. Nothing waits a fixed time:
 * every wait polls a condition (health, Admin.Members, the router's log, the traffic's counters)
 * up to a deadline and, on a timeout, says what it waited for and what it last saw.
 * Measured figures are printed and written to target/cluster-figures.txt.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(OrderAnnotation.class)
class ReplicatedClusterIT {
    /**
     * Fingerprints loaded first. The phases check the same things at any size; the moves' times
     * grow with it (six records a document replica), so the suite loads 50,000 (about 12 a
     * partition) and the capacity figures are measured with a million.
     */
    private static final int LOADED = Integer.getInteger("simdex.it.documents", 50_000);
    private static final int PROBES = 1_200;
    /** Reader calls and acknowledged writes that show the traffic runs through a state (about a second's worth). */
    private static final int CALLS = 20;
    private static final int ACKS = 400;
    private static final Set<String> FOUNDERS = Set.of("node-1", "node-2", "node-3");
    /** Documents "gone-i" stored with the load; while node-2 is down the first DELETED are deleted and the next REBOUND get new fingerprints. */
    private static final int MISSED = 2_000;
    private static final int DELETED = 1_000;
    private static final int REBOUND = 500;
    /** Documents "old-i" stored once node-4 is placed (it keeps its share) and deleted once it was killed. */
    private static final int OLD = 2_000;

    /** Static: JUnit injects instance {@code @TempDir} fields only before each test, after {@code @BeforeAll}. */
    @TempDir
    static Path dir;

    private ProcessCluster cluster;
    private SimdexGrpc.SimdexBlockingStub stub;
    private final List<String> figures = new ArrayList<>();
    /** States the phases reached; later phases assume the ones they need. */
    private final Set<String> reached = Collections.synchronizedSet(new HashSet<>());
    private long[] probes;
    private List<TreeSet<String>> expected;
    /** Fingerprints of the "gone-i" documents: as loaded, and those of the rebound ones after node-2 went down. */
    private final long[] goneFps = new SplittableRandom(55).longs(MISSED).toArray();
    private final long[] reboundFps = new SplittableRandom(56).longs(REBOUND).toArray();
    private final long[] oldFps = new SplittableRandom(57).longs(OLD).toArray();
    private ClusterTraffic traffic;

    @BeforeAll
    void startCluster() throws Exception {
        cluster = new ProcessCluster(dir, 4);
        long t0 = System.nanoTime();
        cluster.startFounders();
        cluster.await("3 founding nodes readable", cluster::nodes, nodes -> nodes.stream().filter(Member::getReadable).count() == 3,
                ProcessCluster::brief);
        figure("cluster start (3 nodes + router, Raft elected, nodes readable): %.1f s", seconds(t0));
        stub = SimdexGrpc.newBlockingStub(cluster.channel());
    }

    /** The placement epoch of node {@code node}'s in-sync stamp (ClusterNode), -1 without one. */
    private long stampEpoch(String node) {
        InSyncStamp stamp = InSyncStamp.read(dir.resolve(node).resolve("shard"));
        return stamp == null ? -1 : stamp.epoch();
    }

    @AfterAll
    void stopCluster() throws Exception {
        try {
            if (traffic != null) {
                traffic.stop();
            }
            if (cluster != null) {
                cluster.close();
            }
        } finally {
            Files.write(Path.of("target/cluster-figures.txt"), figures);
        }
    }

    @Test
    @Order(1)
    void load_fingerprints_allCounted() throws Exception {
        long[] fps = new SplittableRandom(5).longs(LOADED).toArray();
        long loadStart = System.nanoTime();
        load(stub, fps);
        figure("load of %,d fingerprints (Insert, 10,000 per request, 2 threads, R=2): %.0f docs/s", LOADED, LOADED / seconds(loadStart));
        assertEquals(LOADED, stub.withDeadlineAfter(60, TimeUnit.SECONDS).stats(StatsRequest.getDefaultInstance()).getDocuments());
        probes = BruteForce.probes(fps, PROBES, 17);
        expected = BruteForce.expected(fps, probes);
        InsertRequest.Builder gone = InsertRequest.newBuilder();
        for (int i = 0; i < MISSED; i++) {
            gone.addDocuments(Document.newBuilder().setId("gone-" + i).setFingerprint(goneFps[i]));
        }
        assertEquals(null, insert(stub, gone.build(), "gone-*"));
        reached.add("fingerprints loaded");
    }

    @Test
    @Order(2)
    void killNine_node2_reportedDown_writesStillAcknowledged() throws Exception {
        require("fingerprints loaded");
        traffic = new ClusterTraffic(cluster.channel(), probes, expected);
        traffic.start(true);
        reached.add("traffic running");
        awaitTraffic("before any fault", CALLS, ACKS);

        long killed = System.nanoTime();
        traffic.step("node-2 killed");
        cluster.process("node-2").kill9();
        reached.add("node-2 killed");
        cluster.awaitMember("node-2", "reported down", m -> !m.getLive());
        figure("dead node detected (SIGKILL to Atomix reporting it down, seen through Admin.Members): %.1f s", seconds(killed));
        awaitTraffic("while node-2 is down", CALLS, ACKS); // also: the writer got acknowledgements while a node was down

        // Deletes and rebinds node-2 misses: once it serves alone, none may come back.
        List<String> deleted = IntStream.range(0, DELETED).mapToObj(i -> "gone-" + i).toList();
        assertEquals(DELETED, retried(() -> stub.withDeadlineAfter(60, TimeUnit.SECONDS)
                .delete(DeleteRequest.newBuilder().addAllIds(deleted).build()).getDeleted(), "Delete of gone-*"));
        InsertRequest.Builder rebound = InsertRequest.newBuilder();
        for (int i = 0; i < REBOUND; i++) {
            rebound.addDocuments(Document.newBuilder().setId("gone-" + (DELETED + i)).setFingerprint(reboundFps[i]));
        }
        assertEquals(null, insert(stub, rebound.build(), "gone-* rebound"));
        assertMissedChangesHeld("while node-2 is down");
    }

    @Test
    @Order(3)
    void restart_node2_catchesUpAndServesReads() throws Exception {
        require("node-2 killed");
        try {
            long restarted = System.nanoTime();
            traffic.step("node-2 restarting");
            cluster.launch("node-2");
            cluster.awaitServing("node-2");
            cluster.awaitMember("node-2", "caught up (readable)", Member::getReadable);
            figure("node restart to readable (Raft rejoin + 2 s wait + pull from peers): %.1f s", seconds(restarted));
            reached.add("node-2 caught up");
            String metrics = Metrics.scrape(Metrics.port(cluster.process("node-2")));
            double removed = Metrics.value(metrics, "simdex_node_catchup_removed_total");
            assertTrue(removed > 0, "node-2 removed what it missed: " + removed);
            assertEquals(0, Metrics.value(metrics, "simdex_node_catchup_refused_total"));
            figure("records node-2's catch-up removed (the deletes and rebinds it missed): %,.0f", removed);
        } finally {
            traffic.stopWriter();
        }
    }

    /** The partitions node-1 and node-2 share are now served by node-2 alone: anything it failed to catch up on is missing now. */
    @Test
    @Order(4)
    void killNine_partnerNode1_restartedNode2AloneServesEverything() throws Exception {
        require("node-2 caught up");
        traffic.step("node-1 killed");
        cluster.process("node-1").kill9();
        reached.add("node-1 killed");
        cluster.awaitMember("node-1", "reported down", m -> !m.getLive());
        BruteForce.assertAllAcknowledgedFound(stub, traffic.acked);
        BruteForce.assertExact(stub, probes, expected);
        assertMissedChangesHeld("with node-2 serving alone what it shares with node-1");
    }

    @Test
    @Order(5)
    void restart_node1_nothingMissed_servesWithoutAPull_holdsEveryAcknowledgedWrite() throws Exception {
        require("node-1 killed");
        long restarted = System.nanoTime();
        traffic.step("node-1 restarting");
        cluster.launch("node-1");
        cluster.awaitServing("node-1");
        cluster.awaitMember("node-1", "caught up (readable)", Member::getReadable);
        figure("node restart to readable with nothing missed (no writes while it was down; no pull): %.1f s", seconds(restarted));
        reached.add("all three nodes readable");
        String metrics = Metrics.scrape(Metrics.port(cluster.process("node-1")));
        assertEquals(1, Metrics.value(metrics, "simdex_node_catchup_skipped_total"), "same boot, same epoch, not marked: no pull");
        assertEquals(0, Metrics.value(metrics, "simdex_node_catchup_records_total"));
        BruteForce.assertNodeHolds(cluster.admin(), cluster.shardAddress("node-1"), "node-1", traffic.acked);
    }

    /**
     * node-3 is stalled (SIGSTOP) until the router reports that it missed an acknowledged write
     * (2 s after the other replica answered, or once Atomix reports it down): with W=1 the other
     * replicas acknowledge, so node-3 falls behind without any restart. It must stop serving
     * reads, catch up, and then hold every acknowledged write.
     */
    @Test
    @Order(6)
    void stall_node3_pastWriteTimeout_reportedCaughtUpHoldsEveryWrite() throws Exception {
        require("all three nodes readable");
        long resumed;
        try {
            traffic.startWriter();
            awaitTraffic("before the stall", 0, ACKS);
            SimdexProcess router = cluster.process("router-1");
            int logFrom = router.output().length();
            traffic.step("node-3 stalled");
            cluster.process("node-3").signal("STOP");
            try {
                cluster.await("the router reporting that node-3 missed an acknowledged write", () -> router.output().substring(logFrom),
                        log -> log.contains("node-3 missed an acknowledged write"), log -> "router log since SIGSTOP: " + tail(log));
            } finally {
                cluster.process("node-3").signal("CONT");
                resumed = System.nanoTime();
                traffic.step("node-3 resumed");
            }
            cluster.awaitMember("node-3", "refusing reads after missing writes", m -> m.getLive() && !m.getReadable());
            cluster.awaitMember("node-3", "caught up after the stall (readable)", Member::getReadable);
            figure("stalled node behind, reported, caught up and readable again: %.1f s after SIGCONT", seconds(resumed));
            reached.add("node-3 caught up after the stall");
        } finally {
            traffic.stopWriter();
        }
        BruteForce.assertNodeHolds(cluster.admin(), cluster.shardAddress("node-3"), "node-3", traffic.acked);
    }

    @Test
    @Order(7)
    void addNode4_whileReadingAndWriting_partitionsRebalancedEvenly() throws Exception {
        require("node-3 caught up after the stall");
        SimdexAdmin admin = cluster.admin();
        traffic.startWriter();
        traffic.step("node-4 added");
        cluster.launch("node-4");
        cluster.awaitServing("node-4");
        cluster.awaitMember("node-4", "joined (live)", Member::getLive);
        traffic.phase("during move");
        long moveStart = System.nanoTime();
        Settling settling = new Settling();
        MoveProgress last = admin.addNode("node-4", settling);
        double moveSeconds = seconds(moveStart);
        traffic.phase("after move");
        awaitTraffic("after the move", CALLS, 0);
        assertTrue(last.getDone(), last.toString());
        reached.add("node-4 placed");
        figure("rebalance onto node-4: %d partition replicas, %,d records in %.1f s, %.1f s of it waiting for writes to settle;"
                + " %,.0f records/s copying", last.getPartitionsDone(), last.getRecords(), moveSeconds, settling.seconds(),
                last.getRecords() / (moveSeconds - settling.seconds()));

        PlacementResponse placement = admin.placement(true);
        assertEquals(0, placement.getMoving());
        for (NodeShare n : placement.getNodesList()) {
            assertEquals(2048, n.getReplicas(), 1.0, "share of " + n.getNode() + ": " + placement.getNodesList());
        }
        assertTrue(placement.getPartitionsList().stream().allMatch(p -> p.getReplicasCount() == 2
                && p.getReplicasList().stream().distinct().count() == 2), "every partition on 2 distinct nodes");
        // The founders only gave partitions away: each one's in-sync stamp follows the placement, so a restart need not pull.
        for (String founder : FOUNDERS) {
            cluster.await(founder + "'s in-sync stamp at placement epoch " + placement.getEpoch(), () -> stampEpoch(founder),
                    e -> e == placement.getEpoch(), e -> "stamp epoch " + e);
        }
        InsertRequest.Builder old = InsertRequest.newBuilder();
        for (int i = 0; i < OLD; i++) {
            old.addDocuments(Document.newBuilder().setId("old-" + i).setFingerprint(oldFps[i]));
        }
        assertEquals(null, insert(stub, old.build(), "old-*"));
        reached.add("old-* stored");
    }

    @Test
    @Order(8)
    void drainAndRemove_node4_afterItWasKilled_whileReadingAndWriting_sharesBackToThree() throws Exception {
        require("node-4 placed");
        SimdexAdmin admin = cluster.admin();
        // A node lost for good: its replicas are copied from their partitions' other replicas.
        traffic.step("node-4 killed");
        cluster.process("node-4").kill9();
        cluster.awaitMember("node-4", "reported down", m -> !m.getLive());
        if (reached.contains("old-* stored")) {
            List<String> old = IntStream.range(0, OLD).mapToObj(i -> "old-" + i).toList();
            assertEquals(OLD, retried(() -> stub.withDeadlineAfter(60, TimeUnit.SECONDS)
                    .delete(DeleteRequest.newBuilder().addAllIds(old).build()).getDeleted(), "Delete of old-*"));
            reached.add("old-* deleted");
        }
        traffic.phase("drain");
        traffic.step("node-4 drained and removed");
        long drainStart = System.nanoTime();
        Settling drainSettling = new Settling();
        MoveProgress drained = admin.drainNode("node-4", drainSettling);
        assertTrue(drained.getDone(), drained.toString());
        figure("drain of node-4 (SIGKILLed before): %d partition replicas, %,d records in %.1f s, %.1f s of it waiting for writes"
                + " to settle", drained.getPartitionsDone(), drained.getRecords(), seconds(drainStart), drainSettling.seconds());
        PlacementResponse afterRemove = admin.removeNode("node-4");
        assertEquals(List.of("node-1", "node-2", "node-3"), afterRemove.getNodesList().stream().map(NodeShare::getNode).toList());
        for (NodeShare n : afterRemove.getNodesList()) {
            assertEquals(2731, n.getReplicas(), 1.0, "share of " + n.getNode());
        }
        reached.add("node-4 removed");
        awaitTraffic("after node-4 was removed", CALLS, ACKS);
        long epoch = admin.placement(true).getEpoch();
        for (String founder : FOUNDERS) { // they took node-4's partitions: their next start pulls
            assertTrue(stampEpoch(founder) < epoch, founder + "'s stamp moved to epoch " + epoch + " though it gained partitions");
        }
    }

    @Test
    @Order(9)
    void readdNode4_withTheDataItHadWhenKilled_keepsNothingDeletedSince() throws Exception {
        require("node-4 removed", "old-* deleted");
        SimdexAdmin admin = cluster.admin();
        // Its copies stayed on disk (it was down when drained): a move onto it drops them first,
        // else the pulls would add to them and the deleted old-* would come back.
        traffic.step("node-4 added again");
        cluster.launch("node-4");
        cluster.awaitServing("node-4");
        cluster.awaitMember("node-4", "joined again (live)", Member::getLive);
        long moveStart = System.nanoTime();
        MoveProgress last = admin.addNode("node-4", p -> { });
        assertTrue(last.getDone(), last.toString());
        figure("node-4 added again with the data it had when killed: %d partition replicas, %,d records in %.1f s",
                last.getPartitionsDone(), last.getRecords(), seconds(moveStart));
        BruteForce.assertNodeKeepsNone(cluster.shardAddress("node-4"), "node-4", oldFps, "old-");
        awaitTraffic("after node-4 was added again", CALLS, ACKS);
    }

    @Test
    @Order(10)
    void end_everyAnswerExact_everyAcknowledgedWriteKept() throws Exception {
        require("traffic running");
        Await.Outcome<?> founders = cluster.poll("node-1, node-2 and node-3 readable", cluster::nodes,
                nodes -> nodes.stream().filter(m -> FOUNDERS.contains(m.getId()) && m.getReadable()).count() == 3, ProcessCluster::brief);
        assumeTrue(founders.met(), () -> "aborted: an earlier phase left the cluster degraded; " + founders.describe());
        traffic.stop();

        assertEquals(List.of(), traffic.errors, "errors seen by the reader and writer");
        assertTrue(traffic.queries.get() > 100, "reader made " + traffic.queries.get() + " queries");
        traffic.latencies.forEach((phase, l) -> figure("query latency %s (50 probes per call): median %.1f ms, p99 %.1f ms over %d calls",
                phase, percentile(l, 50), percentile(l, 99), l.size()));
        BruteForce.assertAllAcknowledgedFound(stub, traffic.acked);
        BruteForce.assertExact(stub, probes, expected);
        figure("acknowledged writes checked: %,d", traffic.acked.size());
        // Every write was acknowledged (errors is empty), so the copies add up exactly:
        // nothing moved away was left behind, nothing was copied twice.
        assertMissedChangesHeld("at the end");
        assertEquals(LOADED + MISSED - DELETED + traffic.acked.size(), stub.withDeadlineAfter(60, TimeUnit.SECONDS)
                .stats(StatsRequest.getDefaultInstance()).getDocuments(), "documents (stored copies / R)");
    }

    /**
     * The deleted "gone-i" documents are found nowhere, the rebound ones only at their new
     * fingerprints, the others where they were: a node that missed the changes and copied from
     * its peers when it came back must not bring the old records back.
     */
    private void assertMissedChangesHeld(String when) {
        long[] asked = new long[MISSED + REBOUND];
        System.arraycopy(goneFps, 0, asked, 0, MISSED);
        System.arraycopy(reboundFps, 0, asked, MISSED, REBOUND);
        QueryResponse r = stub.withDeadlineAfter(60, TimeUnit.SECONDS).query(BruteForce.query(asked, 0));
        List<String> wrong = new ArrayList<>();
        for (int i = 0; i < MISSED; i++) {
            boolean found = BruteForce.ids(r, i).contains("gone-" + i);
            if (found != i >= DELETED + REBOUND) {
                wrong.add("gone-" + i + (found ? " found at its old fingerprint" : " not found"));
            }
        }
        for (int i = 0; i < REBOUND; i++) {
            if (!BruteForce.ids(r, MISSED + i).contains("gone-" + (DELETED + i))) {
                wrong.add("gone-" + (DELETED + i) + " not found at its new fingerprint");
            }
        }
        assertEquals(List.of(), wrong.subList(0, Math.min(20, wrong.size())),
                wrong.size() + " of the deleted and rebound documents wrong " + when + " (the first 20 shown)");
    }


    /**
     * 10,000 documents per Insert from 2 threads. A batch that fails UNAVAILABLE is sent again
     * until it is acknowledged or {@link ProcessCluster#STATE_TIMEOUT} has passed since its first
     * attempt (writes are idempotent; on a freshly started cluster on a busy machine the first
     * batches exceed the 15 s shard write timeout); each retry is printed. A batch that still
     * fails stops its thread and fails the load with its status.
     */
    private static void load(SimdexGrpc.SimdexBlockingStub stub, long[] fps) throws InterruptedException {
        int batch = 10_000;
        Thread[] threads = new Thread[2];
        List<String> failures = Collections.synchronizedList(new ArrayList<>());
        for (int t = 0; t < threads.length; t++) {
            int first = t;
            threads[t] = new Thread(() -> {
                for (int b = first; b * batch < fps.length; b += threads.length) {
                    InsertRequest.Builder req = InsertRequest.newBuilder();
                    for (int i = b * batch; i < Math.min(fps.length, (b + 1) * batch); i++) {
                        req.addDocuments(Document.newBuilder().setId("doc-" + i).setFingerprint(fps[i]));
                    }
                    String failed = insert(stub, req.build(), "doc-" + b * batch + "..");
                    if (failed != null) {
                        failures.add(failed);
                        return;
                    }
                }
            });
            threads[t].start();
        }
        for (Thread t : threads) {
            t.join();
        }
        assertEquals(List.of(), failures, "failed Insert batches");
    }

    /** Sends {@code req} until acknowledged, again after each UNAVAILABLE for up to the state timeout; null, or why it failed. */
    static String insert(SimdexGrpc.SimdexBlockingStub stub, InsertRequest req, String what) {
        try {
            retried(() -> stub.withDeadlineAfter(60, TimeUnit.SECONDS).insert(req), "Insert of " + what);
            return null;
        } catch (StatusRuntimeException e) {
            return "Insert of " + what + " failed: " + e;
        }
    }

    /**
     * Calls {@code call} until it does not fail UNAVAILABLE, for up to the state timeout since the
     * first attempt; each retry is printed. Throws the last failure.
     */
    private static <T> T retried(Supplier<T> call, String what) {
        long deadline = System.nanoTime() + ProcessCluster.STATE_TIMEOUT.toNanos();
        for (int attempt = 1; ; attempt++) {
            try {
                return call.get();
            } catch (StatusRuntimeException e) {
                if (e.getStatus().getCode() != Status.Code.UNAVAILABLE || System.nanoTime() - deadline >= 0) {
                    throw e;
                }
                System.out.println("[cluster] " + what + " sent again after attempt " + attempt + ": " + e.getStatus());
                LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(1)); // backoff: an immediate UNAVAILABLE must not spin
            }
        }
    }

    /** Aborts the phase (an assumption, not a failure) unless every state it needs was reached. */
    private void require(String... states) {
        for (String state : states) {
            assumeTrue(reached.contains(state), () -> "aborted: needs \"" + state + "\", which an earlier phase did not reach (see its failure)");
        }
    }

    /** Waits until the reader made {@code calls} more calls and the writer got {@code acks} more acknowledgements than now. */
    private void awaitTraffic(String when, int calls, int acks) throws InterruptedException {
        long q0 = traffic.queries.get();
        long a0 = traffic.acked.size();
        cluster.await(calls + " reader calls and " + acks + " acknowledged writes " + when, () -> traffic,
                t -> t.queries.get() - q0 >= calls && t.acked.size() - a0 >= acks,
                t -> t + "; since the wait began: " + (t.queries.get() - q0) + " calls, " + (t.acked.size() - a0) + " acknowledged writes");
    }

    private static String tail(String s) {
        return s.length() <= 2000 ? s : s.substring(s.length() - 2000);
    }

    private void figure(String format, Object... args) {
        String line = String.format(format, args);
        figures.add(line);
        System.out.println("[cluster figure] " + line);
    }

    /**
     * A move's progress, timing its rounds' waits for writes routed by an older map to settle
     * (from "copied; waiting" to the round's "moved"), which do not depend on the data's size.
     */
    private static final class Settling implements java.util.function.Consumer<MoveProgress> {
        private long waitingSince = -1;
        private long waited;

        @Override
        public void accept(MoveProgress p) {
            if (p.getStage().startsWith("copied; waiting") && waitingSince < 0) {
                waitingSince = System.nanoTime();
            } else if (p.getStage().startsWith("moved ") && waitingSince >= 0) {
                waited += System.nanoTime() - waitingSince;
                waitingSince = -1;
            }
        }

        double seconds() {
            return waited / 1e9;
        }
    }

    private static double seconds(long since) {
        return (System.nanoTime() - since) / 1e9;
    }

    private static double percentile(List<Double> values, int pct) {
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        return sorted.isEmpty() ? Double.NaN : sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(pct / 100.0 * sorted.size()) - 1));
    }
}
