package io.simdex.router.fuzz;

import com.google.protobuf.ByteString;
import com.google.protobuf.DoubleValue;
import com.google.protobuf.UInt32Value;
import com.google.protobuf.UInt64Value;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.simdex.proto.v1.*;
import io.simdex.router.TestServer;
import io.simdex.router.index.ExportCursor;
import io.simdex.server.ShardControlService;
import io.simdex.server.ShardNode;
import io.simdex.server.ShardService;
import io.simdex.server.grpc.RawCall;
import io.simdex.server.grpc.ServerBounds;
import io.simdex.server.store.StoreSizing;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Random and adversarial messages at the public port (an embedded server) and at a node's shard
 * port, over real sockets: huge repeated fields, strings that are not UTF-8, path-like names,
 * numbers at the edges, unknown collections, a message over the size limit. Every answer must be
 * a success or the caller's error (never INTERNAL, UNKNOWN, DATA_LOSS or a timeout), a rejected
 * request must leave the store as it was (Stats before and after), and the server must still
 * answer at the end. Seeded: the seed is printed, and -Dfuzz.seed=N replays a run.
 */
class ApiFuzzTest {
    private static final Set<Status.Code> FAULTS = Set.of(Status.Code.INTERNAL, Status.Code.UNKNOWN, Status.Code.DATA_LOSS,
            Status.Code.DEADLINE_EXCEEDED, Status.Code.UNAVAILABLE);
    private static final int CALLS = 120;

    @TempDir
    Path dir;

    private static long seed() {
        long seed = Long.getLong("fuzz.seed", System.nanoTime());
        System.out.println("ApiFuzzTest seed " + seed + " (replay with -Dfuzz.seed=" + seed + ")");
        return seed;
    }

    @Test
    void publicPort_randomAndAdversarialRequests_callersErrorsOnly_storeUnchangedOnRejection() throws Exception {
        Adversarial a = new Adversarial(seed());
        try (TestServer server = new TestServer(dir, java.time.Clock.systemUTC())) {
            SimdexGrpc.SimdexBlockingStub stub = server.stub();
            stub.createCollection(CreateCollectionRequest.newBuilder().setName("fz").build());
            stub.insert(InsertRequest.newBuilder().setCollection("fz").addDocuments(Document.newBuilder().setId("seed").setFingerprint(42)).build());
            Supplier<String> store = () -> publicStore(stub);
            for (int i = 0; i < CALLS; i++) {
                int kind = a.pick(15);
                attempt("public call " + i + " kind " + kind, store, () -> publicCall(stub, server.channel, a, kind));
            }
            attempt("oversized", store, () -> RawCall.call(server.channel, SimdexGrpc.getInsertMethod().getFullMethodName(),
                    RawCall.field1(new byte[ServerBounds.MAX_MESSAGE_BYTES + 1])));
            assertTrue(stub.stats(StatsRequest.newBuilder().setCollection("default").build()).getShards() > 0, "still answers");
        }
    }

    @Test
    void nodePort_randomAndAdversarialRequests_callersErrorsOnly_storeUnchangedOnRejection() throws Exception {
        Adversarial a = new Adversarial(seed());
        try (ShardNode node = new ShardNode(dir.resolve("node"), c -> new StoreSizing(12_000, 16_000, 131_072, 12))) {
            Server server = ServerBounds.apply(NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)))
                    .addService(ServerBounds.lenient(new ShardService(node).bindService()))
                    .addService(ServerBounds.lenient(new ShardControlService(node).bindService())).build().start();
            ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext()
                    .maxInboundMessageSize(ServerBounds.MAX_MESSAGE_BYTES).build();
            try {
                ShardGrpc.ShardBlockingStub stub = ShardGrpc.newBlockingStub(channel);
                stub.withDeadlineAfter(60, TimeUnit.SECONDS).bucketAdd(ShardBucketRequest.newBuilder().setCollection("fz").addFingerprints(42).build());
                Supplier<String> store = () -> nodeStore(stub);
                for (int i = 0; i < CALLS; i++) {
                    int kind = a.pick(11);
                    attempt("node call " + i + " kind " + kind, store, () -> nodeCall(stub.withDeadlineAfter(60, TimeUnit.SECONDS), channel, a, kind));
                }
                attempt("oversized", store, () -> RawCall.call(channel, ShardGrpc.getBucketAddMethod().getFullMethodName(),
                        RawCall.field1(new byte[ServerBounds.MAX_MESSAGE_BYTES + 1])));
                store.get(); // still answers
            } finally {
                channel.shutdownNow();
                server.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
            }
        }
    }

    /** Runs one call; a fault fails the test, a rejection must leave {@code store} as it was. */
    private static void attempt(String what, Supplier<String> store, Runnable call) {
        String before = store.get();
        try {
            call.run();
        } catch (StatusRuntimeException e) {
            assertFalse(FAULTS.contains(e.getStatus().getCode()), () -> what + ": " + e.getStatus());
            assertEquals(before, store.get(), () -> what + " was rejected (" + e.getStatus() + ") but changed the store");
        }
    }

    private static Object publicCall(SimdexGrpc.SimdexBlockingStub stub, ManagedChannel channel, Adversarial a, int kind) {
        String c = a.name();
        return switch (kind) {
            case 0 -> stub.insert(InsertRequest.newBuilder().setCollection(c).addAllDocuments(docs(a)).build());
            case 1 -> stub.dedup(DedupRequest.newBuilder().setCollection(c).addAllDocuments(docs(a)).setLimit(a.smallNumber())
                    .setMaxDistance(UInt32Value.of(a.smallNumber())).build());
            case 2 -> {
                QueryRequest.Builder q = QueryRequest.newBuilder().setCollection(c).setLimit(a.smallNumber());
                for (int i = 0, n = a.numbersCount(); i < n; i++) {
                    q.addProbes(a.chance(80) ? Probe.newBuilder().setFingerprint(a.number()) : Probe.newBuilder().setText(a.text()));
                }
                yield stub.query(a.chance(50) ? q.setMaxDistance(UInt32Value.of(a.smallNumber())).build() : q.build());
            }
            case 3 -> stub.delete(DeleteRequest.newBuilder().setCollection(c).addAllIds(strings(a)).build());
            case 4 -> stub.fingerprint(FingerprintRequest.newBuilder().setCollection(c).addAllTexts(strings(a)).build());
            case 5 -> stub.stats(StatsRequest.newBuilder().setCollection(c).build());
            case 6 -> stub.checkUrls(CheckUrlsRequest.newBuilder().setJob(c).addAllUrls(strings(a)).setTtlSeconds(a.number())
                    .setCheckOnly(a.chance(50)).setCanonical(a.chance(50)).build());
            case 7 -> stub.dropUrlJob(DropUrlJobRequest.newBuilder().setJob(c).build());
            case 8 -> stub.createCollection(CreateCollectionRequest.newBuilder().setName(c).setSettings(CollectionSettings.newBuilder()
                    .setRetentionSeconds(a.number()).setGenerationSeconds(a.chance(50) ? 0 : a.number()).setNgramSize(a.smallNumber())
                    .setMaxDistance(UInt32Value.of(a.smallNumber()))).build());
            // Never deletes the collections the store check reads.
            case 9 -> c.equals("fz") || c.equals("default") ? null : stub.deleteCollection(DeleteCollectionRequest.newBuilder().setName(c).build());
            case 10 -> RawCall.call(channel, SimdexGrpc.getInsertMethod().getFullMethodName(), RawCall.notUtf8(a.pick(3)));
            case 12 -> {
                UpdateCollectionRequest.Builder u = UpdateCollectionRequest.newBuilder().setName(c);
                if (a.chance(50)) {
                    u.setMaxDistance(UInt32Value.of(a.smallNumber()));
                }
                if (a.chance(50)) {
                    u.setRetentionSeconds(UInt64Value.of(a.number()));
                }
                if (a.chance(50)) { // any bits: NaN, infinities, negatives, subnormals
                    u.setSketchMinJaccard(DoubleValue.of(a.chance(50) ? Double.longBitsToDouble(a.number()) : a.pick(12) / 10.0));
                }
                if (a.chance(30)) {
                    u.setShortFingerprintMinJaccard(DoubleValue.of(Double.longBitsToDouble(a.number())));
                }
                yield stub.updateCollection(u.build());
            }
            case 11 -> RawCall.call(channel, SimdexGrpc.getCheckUrlsMethod().getFullMethodName(), RawCall.notUtf8(a.pick(3)));
            case 13 -> stub.export(ExportRequest.newBuilder().setCollection(c).setPageSize(a.chance(50) ? a.smallNumber() : (int) a.number())
                    .setCursor(a.chance(30) ? a.string() : a.chance(50) ? "" : new ExportCursor(a.number(), c, a.smallNumber() - 1,
                            a.smallNumber() - 2, a.number(), a.smallNumber() - 1, (int) a.number()).encode()).build());
            default -> {
                byte[] junk = new byte[a.pick(64)];
                a.random().nextBytes(junk);
                yield RawCall.call(channel, SimdexGrpc.getQueryMethod().getFullMethodName(), junk);
            }
        };
    }

    private static Object nodeCall(ShardGrpc.ShardBlockingStub stub, ManagedChannel channel, Adversarial a, int kind) {
        String c = a.name();
        return switch (kind) {
            case 0 -> stub.bucketAdd(ShardBucketRequest.newBuilder().setCollection(c).setTable(a.smallNumber()).setGeneration(generation(a))
                    .addAllFingerprints(longs(a)).build());
            case 1 -> stub.probe(ShardProbeRequest.newBuilder().setCollection(c).setTable(a.smallNumber()).setMaxDistance(a.smallNumber())
                    .addAllFingerprints(longs(a)).addAllGenerations(longs(a)).build());
            case 2 -> stub.bindIds(ShardIdsRequest.newBuilder().setCollection(c).setGeneration(generation(a)).addAllIds(strings(a))
                    .addAllFingerprints(longs(a)).build());
            case 3 -> stub.resolveIds(ShardResolveRequest.newBuilder().setCollection(c).addAllFingerprints(longs(a)).addAllGenerations(longs(a))
                    .setLimit(a.smallNumber()).build());
            case 4 -> stub.checkUrls(ShardUrlsRequest.newBuilder().setJob(c).addUrlHashes(ByteString.copyFrom(a.bytes()))
                    .setNowSeconds(a.number()).setExpiresAtSeconds(a.number()).build());
            case 5 -> stub.dropUrlJob(ShardDropUrlJobRequest.newBuilder().setJob(c).build());
            case 6 -> stub.putTexts(ShardTextsRequest.newBuilder().setCollection(c).setGeneration(generation(a)).addAllIds(strings(a))
                    .addAllTexts(strings(a)).build());
            case 7 -> ShardControlGrpc.newBlockingStub(channel).withDeadlineAfter(60, TimeUnit.SECONDS).dropPartitions(PartitionsRequest.newBuilder()
                    .addPartitions(a.smallNumber()).addPartitions(Integer.MAX_VALUE).build());
            case 8 -> RawCall.call(channel, ShardGrpc.getDropUrlJobMethod().getFullMethodName(), RawCall.notUtf8(a.pick(3)));
            case 9 -> stub.exportIds(ShardExportIdsRequest.newBuilder().setCollection(c).addAllGenerations(longs(a))
                    .setPartitions(ByteString.copyFrom(a.chance(50) ? a.bytes() : new byte[512])).setGeneration(a.number())
                    .setMapGeneration((int) a.number()).setSegment(a.smallNumber() - 1).setLimit((int) a.number()).build());
            default -> stub.stats(ShardStatsRequest.newBuilder().setCollection(c).setMinGeneration(a.number()).build());
        };
    }

    /** Generations a test may create stores for: a few, each a set of map files. */
    private static long generation(Adversarial a) {
        return a.chance(80) ? 0 : a.number();
    }

    private static List<Document> docs(Adversarial a) {
        List<Document> out = new ArrayList<>();
        for (int i = 0, n = a.count(); i < n; i++) {
            Document.Builder d = Document.newBuilder().setId(a.chance(80) ? "d" + a.pick(1000) : a.string());
            out.add((a.chance(70) ? d.setFingerprint(a.number()) : d.setText(a.text())).build());
        }
        return out;
    }

    private static List<String> strings(Adversarial a) {
        List<String> out = new ArrayList<>();
        for (int i = 0, n = a.count(); i < n; i++) {
            out.add(a.string());
        }
        return out;
    }

    private static List<Long> longs(Adversarial a) {
        List<Long> out = new ArrayList<>();
        for (int i = 0, n = a.numbersCount(); i < n; i++) {
            out.add(a.number());
        }
        return out;
    }

    /** What a rejected public request must not change: the collections and the counts of the two the test writes to. */
    private static String publicStore(SimdexGrpc.SimdexBlockingStub stub) {
        StringBuilder b = new StringBuilder();
        stub.listCollections(ListCollectionsRequest.getDefaultInstance()).getCollectionsList().forEach(c -> b.append(c.getName()).append(' '));
        for (String c : List.of("default", "fz")) {
            StatsResponse s = stub.stats(StatsRequest.newBuilder().setCollection(c).build());
            b.append(c).append(':').append(s.getDocuments()).append('/').append(s.getFingerprints()).append('/').append(s.getBucketEntries()).append(' ');
        }
        return b.toString();
    }

    private static String nodeStore(ShardGrpc.ShardBlockingStub stub) {
        StringBuilder b = new StringBuilder();
        for (String c : List.of("default", "fz")) {
            ShardStatsResponse s = stub.withDeadlineAfter(60, TimeUnit.SECONDS).stats(ShardStatsRequest.newBuilder().setCollection(c)
                    .setMinGeneration(Long.MIN_VALUE).build());
            b.append(c).append(':').append(s.getDocuments()).append('/').append(s.getFingerprints()).append('/').append(s.getBucketEntries()).append(' ');
        }
        return b.toString();
    }
}
