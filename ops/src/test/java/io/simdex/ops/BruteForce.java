package io.simdex.ops;

import com.google.protobuf.UInt32Value;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.simdex.client.SimdexAdmin;
import io.simdex.core.Partitions;
import io.simdex.fingerprint.BitFlips;
import io.simdex.fingerprint.BlockTables;
import io.simdex.fingerprint.Hamming;
import io.simdex.proto.v1.Match;
import io.simdex.proto.v1.PartitionReplicas;
import io.simdex.proto.v1.Probe;
import io.simdex.proto.v1.QueryRequest;
import io.simdex.proto.v1.QueryResponse;
import io.simdex.proto.v1.ShardGrpc;
import io.simdex.proto.v1.ShardProbeRequest;
import io.simdex.proto.v1.ShardProbeResponse;
import io.simdex.proto.v1.ShardResolveRequest;
import io.simdex.proto.v1.ShardResolveResponse;
import io.simdex.proto.v1.SimdexGrpc;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.IntPredicate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The reference the process tests check against: planted probes, their brute-force answers, and the checks. */
final class BruteForce {
    private BruteForce() {
    }

    /** Planted neighbours at distances 0..5 of stored fingerprints (3 in, 4 and 5 out). */
    static long[] probes(long[] fps, int count, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        long[] probes = new long[count];
        for (int i = 0; i < probes.length; i++) {
            probes[i] = BitFlips.flip(fps[rnd.nextInt(fps.length)], i % 6, rnd);
        }
        return probes;
    }

    /** For each probe, the ids {@code doc-i} of every {@code fps[i]} within distance 3. */
    static List<TreeSet<String>> expected(long[] fps, long[] probes) {
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

    static QueryRequest query(long[] probes, int maxDistance) {
        QueryRequest.Builder req = QueryRequest.newBuilder().setMaxDistance(UInt32Value.of(maxDistance));
        for (long p : probes) {
            req.addProbes(Probe.newBuilder().setFingerprint(p));
        }
        return req.build();
    }

    static TreeSet<String> ids(QueryResponse r, int q) {
        TreeSet<String> got = new TreeSet<>();
        for (Match m : r.getResults(q).getMatchesList()) {
            got.add(m.getId());
        }
        return got;
    }

    /** Every probe, 200 per call, answers exactly the brute-force ids. */
    static void assertExact(SimdexGrpc.SimdexBlockingStub stub, long[] probes, List<TreeSet<String>> expected) {
        for (int from = 0; from < probes.length; from += 200) {
            int n = Math.min(200, probes.length - from);
            QueryResponse r = stub.withDeadlineAfter(30, TimeUnit.SECONDS).query(query(Arrays.copyOfRange(probes, from, from + n), 3));
            for (int q = 0; q < n; q++) {
                assertEquals(expected.get(from + q), ids(r, q), "probe " + (from + q));
            }
        }
    }

    /** Each acknowledged write {@code {index, fp}} is found as {@code w-index} at distance 0. */
    static void assertAllAcknowledgedFound(SimdexGrpc.SimdexBlockingStub stub, Collection<long[]> acked) {
        List<long[]> all = new ArrayList<>(acked);
        for (int from = 0; from < all.size(); from += 1000) {
            List<long[]> part = all.subList(from, Math.min(all.size(), from + 1000));
            QueryResponse r = stub.withDeadlineAfter(30, TimeUnit.SECONDS).query(query(part.stream().mapToLong(w -> w[1]).toArray(), 0));
            for (int q = 0; q < part.size(); q++) {
                assertTrue(ids(r, q).contains("w-" + part.get(q)[0]), "acknowledged write w-" + part.get(q)[0] + " not found");
            }
        }
    }

    /** Asks the node itself (not through a router): each acknowledged write in its partitions is in its buckets and fp map. */
    static void assertNodeHolds(SimdexAdmin admin, String address, String node, Collection<long[]> acked) {
        List<PartitionReplicas> placement = admin.placement(true).getPartitionsList();
        IntPredicate holds = p -> placement.get(p).getReplicasList().contains(node);
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

    /**
     * Fails if the node at {@code address} keeps any of {@code fps} in a table at distance 0, or
     * an id starting with {@code idPrefix} under any of them: documents deleted cluster-wide.
     */
    static void assertNodeKeepsNone(String address, String node, long[] fps, String idPrefix) {
        ManagedChannel channel = NettyChannelBuilder.forTarget(address).usePlaintext().build();
        try {
            ShardGrpc.ShardBlockingStub shard = ShardGrpc.newBlockingStub(channel).withDeadlineAfter(60, TimeUnit.SECONDS);
            List<Long> all = Arrays.stream(fps).boxed().toList();
            for (int t = 0; t < BlockTables.TABLES; t++) {
                ShardProbeResponse r = shard.probe(ShardProbeRequest.newBuilder().setCollection("default").setTable(t).setMaxDistance(0)
                        .addGenerations(0).addAllFingerprints(all).build());
                for (int i = 0; i < fps.length; i++) {
                    assertFalse(r.getMatches(i).getFingerprintsList().contains(fps[i]), node + " keeps deleted " + idPrefix + i + " in table " + t);
                }
            }
            ShardResolveResponse ids = shard.resolveIds(ShardResolveRequest.newBuilder().setCollection("default").addAllFingerprints(all)
                    .addAllGenerations(all.stream().map(fp -> 0L).toList()).build());
            for (int i = 0; i < fps.length; i++) {
                int at = i;
                assertTrue(ids.getIds(i).getIdsList().stream().noneMatch(id -> id.startsWith(idPrefix)),
                        () -> node + " keeps the fp -> id record of deleted " + idPrefix + at + ": " + ids.getIds(at).getIdsList());
            }
        } finally {
            channel.shutdownNow();
        }
    }
}
