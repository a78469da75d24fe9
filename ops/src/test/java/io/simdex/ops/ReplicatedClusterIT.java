package io.simdex.ops;

import com.google.protobuf.UInt32Value;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.simdex.client.ClientOptions;
import io.simdex.client.SimdexAdmin;
import io.simdex.core.Partitions;
import io.simdex.fingerprint.BitFlips;
import io.simdex.fingerprint.BlockTables;
import io.simdex.fingerprint.Hamming;
import io.simdex.proto.v1.Document;
import io.simdex.proto.v1.InsertRequest;
import io.simdex.proto.v1.Match;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The cluster issue's acceptance test, in real processes on loopback with real Atomix: three
 * founding nodes with R=2 (W=1) and a router; 1M fingerprints; a node SIGKILLed while a writer
 * and a reader run; its restart and catch-up (checked by then killing its partner, so the
 * restarted node alone serves the partitions they share); a fourth node added and the
 * partitions rebalanced while the reader and writer run; then drained and removed again. A node
 * SIGSTOPped past the call timeout misses writes without restarting; it must be reported,
 * catch up, and hold them all. Every query must give exactly the
 * brute-force answer, and every acknowledged write must be found at the end.
 * Measured figures are printed and written to target/cluster-figures.txt.
 */
class ReplicatedClusterIT {
    private static final int LOADED = 1_000_000;
    private static final int PROBES = 1_200;

    @TempDir
    Path dir;

    private final Map<String, SimdexProcess> processes = new LinkedHashMap<>();
    private final Map<String, Integer> starts = new LinkedHashMap<>();
    private final List<String> figures = new ArrayList<>();
    private int routerPort;

    @Test
    void killRestartAndRebalance_everyAnswerExact_everyAcknowledgedWriteKept() throws Exception {
        int[] atomix = new int[5];
        int[] shard = new int[5];
        for (int i = 1; i <= 4; i++) {
            atomix[i] = SimdexProcess.freePort();
            shard[i] = SimdexProcess.freePort();
        }
        String seeds = IntStream.rangeClosed(1, 3).mapToObj(i -> "node-" + i + "@127.0.0.1:" + atomix[i]).reduce((a, b) -> a + "," + b).get();
        for (int i = 1; i <= 4; i++) {
            writeConfig("node-" + i, shard[i], atomix[i], seeds);
        }
        routerPort = SimdexProcess.freePort();
        Files.writeString(dir.resolve("router-1.properties"), "id=router-1\nhost=127.0.0.1\nport=" + routerPort + "\natomix.port="
                + SimdexProcess.freePort() + "\ndata=" + dir.resolve("router-1") + "\nseeds=" + seeds + "\n");
        try {
            long t0 = System.nanoTime();
            for (int i = 1; i <= 3; i++) {
                launch("node-" + i); // together: Raft needs a quorum to start
            }
            for (int i = 1; i <= 3; i++) {
                processes.get("node-" + i).awaitServing(shard[i], "simdex.v1.Shard");
            }
            launch("router-1");
            processes.get("router-1").awaitServing(routerPort, "simdex.v1.Simdex");
            ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", routerPort).usePlaintext().build();
            try (SimdexAdmin admin = SimdexAdmin.over(channel, ClientOptions.DEFAULTS)) {
                awaitAll(admin, "founding nodes readable", () -> readableNodes(admin) == 3);
                figure("cluster start (3 nodes + router, Raft elected, nodes readable): %.1f s", seconds(t0));
                SimdexGrpc.SimdexBlockingStub stub = SimdexGrpc.newBlockingStub(channel);

                long[] fps = new SplittableRandom(5).longs(LOADED).toArray();
                long loadStart = System.nanoTime();
                load(stub, fps);
                figure("load of %,d fingerprints (Insert, 10,000 per request, 2 threads, R=2): %.0f docs/s", LOADED,
                        LOADED / seconds(loadStart));
                assertEquals(LOADED, stub.withDeadlineAfter(60, TimeUnit.SECONDS).stats(StatsRequest.getDefaultInstance()).getDocuments());

                long[] probes = probes(fps);
                List<TreeSet<String>> expected = bruteForce(fps, probes);
                Traffic traffic = new Traffic(channel, probes, expected);
                traffic.start(true);
                Thread.sleep(3_000);

                // 1. SIGKILL a node while the writer and reader run.
                long killed = System.nanoTime();
                processes.get("node-2").kill9();
                awaitAll(admin, "node-2 reported down", () -> !live(admin, "node-2"));
                figure("dead node detected (SIGKILL to Atomix reporting it down, seen through Admin.Members): %.1f s", seconds(killed));
                Thread.sleep(5_000);
                long acksWhileDown = traffic.acked.size();

                // 2. Restart it: it takes writes at once and serves reads once caught up.
                long restarted = System.nanoTime();
                launch("node-2");
                processes.get("node-2").awaitServing(shard[2], "simdex.v1.Shard");
                awaitAll(admin, "node-2 caught up", () -> readableOf(admin, "node-2"));
                figure("node restart to readable (Raft rejoin + 2 s wait + pull from peers): %.1f s", seconds(restarted));
                traffic.stopWriter();
                assertTrue(acksWhileDown > 0, "the writer got no acknowledgement while a node was down");

                // 3. Kill its partner: the partitions node-1 and node-2 share are now served by node-2 alone,
                // so anything it failed to catch up on would be missing now.
                processes.get("node-1").kill9();
                awaitAll(admin, "node-1 reported down", () -> !live(admin, "node-1"));
                assertAllAcknowledgedFound(stub, traffic.acked);
                assertExact(stub, probes, expected);
                launch("node-1");
                processes.get("node-1").awaitServing(shard[1], "simdex.v1.Shard");
                awaitAll(admin, "node-1 caught up", () -> readableOf(admin, "node-1"));

                // 4. Stall node-3 (SIGSTOP) past the 15 s shard write timeout while the writer runs: with W=1
                // writes are acknowledged by the other replicas, so node-3 falls behind without any restart.
                // The router reports it; it must stop serving reads, catch up, and then hold every write.
                traffic.startWriter();
                Thread.sleep(1_000);
                processes.get("node-3").signal("STOP");
                Thread.sleep(17_000);
                processes.get("node-3").signal("CONT");
                long resumed = System.nanoTime();
                awaitAll(admin, "node-3 refusing reads after missing writes", () -> live(admin, "node-3") && !readableOf(admin, "node-3"));
                awaitAll(admin, "node-3 caught up after the stall", () -> readableOf(admin, "node-3"));
                figure("stalled node behind, reported, caught up and readable again: %.1f s after SIGCONT", seconds(resumed));
                traffic.stopWriter();
                assertNodeHolds(admin, "127.0.0.1:" + shard[3], "node-3", traffic.acked);

                // 5. A fourth node joins and takes its share while the reader and writer run.
                traffic.startWriter();
                launch("node-4");
                processes.get("node-4").awaitServing(shard[4], "simdex.v1.Shard");
                awaitAll(admin, "node-4 joined", () -> live(admin, "node-4"));
                traffic.phase("during move");
                long moveStart = System.nanoTime();
                MoveProgress last = admin.addNode("node-4", p -> { });
                double moveSeconds = seconds(moveStart);
                traffic.phase("after move");
                Thread.sleep(3_000);
                assertTrue(last.getDone(), last.toString());
                figure("rebalance onto node-4: %d partition replicas, %,d records in %.1f s = %,.0f records/s", last.getPartitionsDone(),
                        last.getRecords(), moveSeconds, last.getRecords() / moveSeconds);

                PlacementResponse placement = admin.placement(true);
                traffic.phase("drain");
                assertEquals(0, placement.getMoving());
                for (NodeShare n : placement.getNodesList()) {
                    assertEquals(2048, n.getReplicas(), 1.0, "share of " + n.getNode() + ": " + placement.getNodesList());
                }
                assertTrue(placement.getPartitionsList().stream().allMatch(p -> p.getReplicasCount() == 2
                        && p.getReplicasList().stream().distinct().count() == 2), "every partition on 2 distinct nodes");

                // 6. Decommission: drain node-4 again while the reader runs, then remove it.
                long drainStart = System.nanoTime();
                MoveProgress drained = admin.drainNode("node-4", p -> { });
                figure("drain of node-4: %d partition replicas, %,d records in %.1f s", drained.getPartitionsDone(), drained.getRecords(),
                        seconds(drainStart));
                PlacementResponse afterRemove = admin.removeNode("node-4");
                assertEquals(List.of("node-1", "node-2", "node-3"), afterRemove.getNodesList().stream().map(NodeShare::getNode).toList());
                for (NodeShare n : afterRemove.getNodesList()) {
                    assertEquals(2731, n.getReplicas(), 1.0, "share of " + n.getNode());
                }
                Thread.sleep(2_000);
                traffic.stop();

                assertEquals(List.of(), traffic.errors, "errors seen by the reader and writer");
                assertTrue(traffic.queries.get() > 100, "reader made " + traffic.queries.get() + " queries");
                traffic.latencies.forEach((phase, l) -> figure("query latency %s (50 probes per call): median %.1f ms, p99 %.1f ms over %d calls",
                        phase, percentile(l, 50), percentile(l, 99), l.size()));
                assertAllAcknowledgedFound(stub, traffic.acked);
                assertExact(stub, probes, expected);
                figure("acknowledged writes checked: %,d", traffic.acked.size());
                // Every write was acknowledged (errors is empty), so the copies add up exactly:
                // nothing moved away was left behind, nothing was copied twice.
                assertEquals(LOADED + traffic.acked.size(), stub.withDeadlineAfter(60, TimeUnit.SECONDS)
                        .stats(StatsRequest.getDefaultInstance()).getDocuments(), "documents (stored copies / R)");
            }
            channel.shutdownNow();
        } finally {
            for (SimdexProcess p : processes.values()) {
                p.close();
            }
            Files.write(Path.of("target/cluster-figures.txt"), figures);
        }
    }

    /** Queries and inserts from two threads; any failure or wrong answer is recorded. */
    private static final class Traffic {
        final ManagedChannel channel;
        final long[] probes;
        final List<TreeSet<String>> expected;
        final ConcurrentLinkedQueue<long[]> acked = new ConcurrentLinkedQueue<>(); // {index, fp}
        final List<String> errors = Collections.synchronizedList(new ArrayList<>());
        final AtomicLong queries = new AtomicLong();
        final Map<String, List<Double>> latencies = Collections.synchronizedMap(new LinkedHashMap<>());
        final AtomicBoolean running = new AtomicBoolean(true);
        final AtomicBoolean writing = new AtomicBoolean();
        volatile String phase = "before move";
        Thread reader;
        Thread writer;
        final AtomicLong nextWrite = new AtomicLong();

        Traffic(ManagedChannel channel, long[] probes, List<TreeSet<String>> expected) {
            this.channel = channel;
            this.probes = probes;
            this.expected = expected;
        }

        void start(boolean withWriter) {
            reader = new Thread(this::read, "reader");
            reader.start();
            if (withWriter) {
                startWriter();
            }
        }

        void phase(String name) {
            phase = name;
        }

        void read() {
            SplittableRandom rnd = new SplittableRandom(3);
            while (running.get()) {
                int from = rnd.nextInt(probes.length / 50) * 50;
                long[] chunk = Arrays.copyOfRange(probes, from, from + 50);
                long t = System.nanoTime();
                try {
                    QueryResponse r = SimdexGrpc.newBlockingStub(channel).withDeadlineAfter(20, TimeUnit.SECONDS).query(query(chunk));
                    latencies.computeIfAbsent(phase, k -> Collections.synchronizedList(new ArrayList<>())).add((System.nanoTime() - t) / 1e6);
                    for (int q = 0; q < chunk.length; q++) {
                        TreeSet<String> got = ids(r, q);
                        if (!got.equals(expected.get(from + q))) {
                            errors.add("probe " + (from + q) + " (" + phase + "): expected " + expected.get(from + q) + ", got " + got);
                        }
                    }
                    queries.incrementAndGet();
                } catch (RuntimeException e) {
                    errors.add("query failed (" + phase + "): " + e);
                }
            }
        }

        void startWriter() {
            writing.set(true);
            writer = new Thread(this::write, "writer");
            writer.start();
        }

        /** Random fingerprints: none is near a probe (chance about 1e-13), so the reader's answers stay fixed. */
        void write() {
            SplittableRandom rnd = new SplittableRandom(nextWrite.get() + 99);
            while (writing.get() && running.get()) {
                long first = nextWrite.getAndAdd(20);
                InsertRequest.Builder req = InsertRequest.newBuilder();
                long[] fps = rnd.longs(20).toArray();
                for (int i = 0; i < 20; i++) {
                    req.addDocuments(Document.newBuilder().setId("w-" + (first + i)).setFingerprint(fps[i]));
                }
                try {
                    SimdexGrpc.newBlockingStub(channel).withDeadlineAfter(20, TimeUnit.SECONDS).insert(req.build());
                    for (int i = 0; i < 20; i++) {
                        acked.add(new long[]{first + i, fps[i]});
                    }
                } catch (RuntimeException e) {
                    // Not acknowledged: nothing is promised about it (W=1 should still accept with one node down).
                    errors.add("insert failed (" + phase + "): " + e);
                }
            }
        }

        void stopWriter() throws InterruptedException {
            writing.set(false);
            writer.join();
        }

        void stop() throws InterruptedException {
            running.set(false);
            writing.set(false);
            reader.join();
            if (writer != null) {
                writer.join();
            }
        }
    }

    private void writeConfig(String id, int port, int atomixPort, String seeds) throws IOException {
        Files.writeString(dir.resolve(id + ".properties"), "id=" + id + "\nhost=127.0.0.1\nport=" + port + "\natomix.port=" + atomixPort
                + "\ndata=" + dir.resolve(id) + "\nseeds=" + seeds + "\nraft=node-1,node-2,node-3\nreplication=2\nwrite.quorum=1\nexpected=1500000\n");
    }

    private void launch(String id) throws IOException {
        int n = starts.merge(id, 1, Integer::sum);
        String kind = id.startsWith("router") ? "router" : "node";
        processes.put(id, SimdexProcess.start(dir.resolve(id + "-" + n + ".log"), kind, "--config", dir.resolve(id + ".properties").toString()));
    }

    private static void load(SimdexGrpc.SimdexBlockingStub stub, long[] fps) throws InterruptedException {
        int batch = 10_000;
        Thread[] threads = new Thread[2];
        for (int t = 0; t < threads.length; t++) {
            int first = t;
            threads[t] = new Thread(() -> {
                for (int b = first; b * batch < fps.length; b += threads.length) {
                    InsertRequest.Builder req = InsertRequest.newBuilder();
                    for (int i = b * batch; i < Math.min(fps.length, (b + 1) * batch); i++) {
                        req.addDocuments(Document.newBuilder().setId("doc-" + i).setFingerprint(fps[i]));
                    }
                    stub.withDeadlineAfter(60, TimeUnit.SECONDS).insert(req.build());
                }
            });
            threads[t].start();
        }
        for (Thread t : threads) {
            t.join();
        }
    }

    /** Planted neighbours at distances 0..5 of stored fingerprints (3 in, 4 and 5 out). */
    private static long[] probes(long[] fps) {
        SplittableRandom rnd = new SplittableRandom(17);
        long[] probes = new long[PROBES];
        for (int i = 0; i < probes.length; i++) {
            probes[i] = BitFlips.flip(fps[rnd.nextInt(fps.length)], i % 6, rnd);
        }
        return probes;
    }

    private static List<TreeSet<String>> bruteForce(long[] fps, long[] probes) {
        List<TreeSet<String>> out = new ArrayList<>();
        for (long p : probes) {
            TreeSet<String> ids = new TreeSet<>();
            for (int i = 0; i < fps.length; i++) {
                if (Hamming.distance(fps[i], p) <= 3) {
                    ids.add("doc-" + i);
                }
            }
            out.add(ids);
        }
        return out;
    }

    private static QueryRequest query(long[] probes) {
        QueryRequest.Builder req = QueryRequest.newBuilder().setMaxDistance(UInt32Value.of(3));
        for (long p : probes) {
            req.addProbes(Probe.newBuilder().setFingerprint(p));
        }
        return req.build();
    }

    private static TreeSet<String> ids(QueryResponse r, int q) {
        TreeSet<String> got = new TreeSet<>();
        for (Match m : r.getResults(q).getMatchesList()) {
            got.add(m.getId());
        }
        return got;
    }

    private static void assertExact(SimdexGrpc.SimdexBlockingStub stub, long[] probes, List<TreeSet<String>> expected) {
        for (int from = 0; from < probes.length; from += 200) {
            QueryResponse r = stub.withDeadlineAfter(30, TimeUnit.SECONDS).query(query(Arrays.copyOfRange(probes, from, from + 200)));
            for (int q = 0; q < 200; q++) {
                assertEquals(expected.get(from + q), ids(r, q), "probe " + (from + q));
            }
        }
    }

    private static void assertAllAcknowledgedFound(SimdexGrpc.SimdexBlockingStub stub, ConcurrentLinkedQueue<long[]> acked) {
        List<long[]> all = new ArrayList<>(acked);
        for (int from = 0; from < all.size(); from += 1000) {
            List<long[]> part = all.subList(from, Math.min(all.size(), from + 1000));
            QueryResponse r = stub.withDeadlineAfter(30, TimeUnit.SECONDS)
                    .query(query(part.stream().mapToLong(w -> w[1]).toArray()).toBuilder().setMaxDistance(UInt32Value.of(0)).build());
            for (int q = 0; q < part.size(); q++) {
                assertTrue(ids(r, q).contains("w-" + part.get(q)[0]), "acknowledged write w-" + part.get(q)[0] + " not found");
            }
        }
    }

    /** Asks the node itself (not through a router): each acknowledged write in its partitions is in its buckets and fp map. */
    private static void assertNodeHolds(SimdexAdmin admin, String address, String node, ConcurrentLinkedQueue<long[]> acked) throws Exception {
        List<io.simdex.proto.v1.PartitionReplicas> placement = admin.placement(true).getPartitionsList();
        java.util.function.IntPredicate holds = p -> placement.get(p).getReplicasList().contains(node);
        ManagedChannel channel = NettyChannelBuilder.forTarget(address).usePlaintext().build();
        try {
            ShardGrpc.ShardBlockingStub shard = ShardGrpc.newBlockingStub(channel).withDeadlineAfter(60, TimeUnit.SECONDS);
            int checked = 0;
            for (int t = 0; t < BlockTables.TABLES; t++) {
                int table = t;
                List<long[]> mine = acked.stream().filter(w -> holds.test(Partitions.ofBucket(table, BlockTables.block(w[1], table)))).toList();
                ShardProbeResponse r = shard.probe(ShardProbeRequest.newBuilder().setCollection("default").setTable(t).setMaxDistance(0)
                        .addGenerations(0).addAllFingerprints(mine.stream().map(w -> w[1]).toList()).build());
                for (int i = 0; i < mine.size(); i++) {
                    assertTrue(r.getMatches(i).getFingerprintsList().contains(mine.get(i)[1]),
                            node + " lacks w-" + mine.get(i)[0] + " in table " + t);
                }
                checked += mine.size();
            }
            List<long[]> mine = acked.stream().filter(w -> holds.test(Partitions.ofFingerprint(w[1]))).toList();
            ShardResolveResponse ids = shard.resolveIds(ShardResolveRequest.newBuilder().setCollection("default")
                    .addAllFingerprints(mine.stream().map(w -> w[1]).toList()).addAllGenerations(mine.stream().map(w -> 0L).toList()).build());
            for (int i = 0; i < mine.size(); i++) {
                assertTrue(ids.getIds(i).getIdsList().contains("w-" + mine.get(i)[0]), node + " lacks the fp -> id record of w-" + mine.get(i)[0]);
            }
            assertTrue(checked > 0 && !mine.isEmpty(), "nothing to check on " + node);
        } finally {
            channel.shutdownNow();
        }
    }

    private static int readableNodes(SimdexAdmin admin) {
        return (int) admin.members().getMembersList().stream().filter(m -> m.getRole().equals("node") && m.getReadable()).count();
    }

    private static boolean readableOf(SimdexAdmin admin, String id) {
        return member(admin, id).getReadable();
    }

    private static boolean live(SimdexAdmin admin, String id) {
        return member(admin, id).getLive();
    }

    private static Member member(SimdexAdmin admin, String id) {
        return admin.members().getMembersList().stream().filter(m -> m.getId().equals(id)).findFirst()
                .orElse(Member.newBuilder().setId(id).build());
    }

    private void awaitAll(SimdexAdmin admin, String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (System.nanoTime() < deadline) {
            try {
                if (condition.getAsBoolean()) {
                    return;
                }
            } catch (RuntimeException notYet) {
                // the router may be between maps
            }
            Thread.sleep(100);
        }
        StringBuilder logs = new StringBuilder();
        processes.forEach((id, p) -> logs.append("\n--- ").append(id).append(" ---\n").append(tail(p.output())));
        throw new AssertionError("timed out waiting for: " + what + logs);
    }

    private static String tail(String s) {
        return s.length() <= 4000 ? s : s.substring(s.length() - 4000);
    }

    private void figure(String format, Object... args) {
        String line = String.format(format, args);
        figures.add(line);
        System.out.println("[cluster figure] " + line);
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
