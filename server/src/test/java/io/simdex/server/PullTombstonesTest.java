package io.simdex.server;

import com.google.protobuf.ByteString;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import io.simdex.core.Partitions;
import io.simdex.proto.v1.ExportChunk;
import io.simdex.proto.v1.PartitionsRequest;
import io.simdex.proto.v1.ShardControlGrpc;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Deletes made on the pulling node while a pull runs stay deleted; writes made there stay too.
 * The source is a scripted peer that sends its first chunk, then waits for the test, so the
 * local changes land between the two chunks, as they would during a long copy.
 */
class PullTombstonesTest {
    private static final int[] ALL = IntStream.range(0, Partitions.COUNT).toArray();
    private static final String C = "c";
    private static final long FP_KEEP = 0x1111_0000_0000_0001L;
    private static final long FP_DEL = 0x2222_0000_0000_0002L;
    private static final long FP_DEL_LATER = 0x3333_0000_0000_0003L;
    private static final long FP_KEEP_LATER = 0x4444_0000_0000_0004L;
    private static final long FP_OLD = 0x5555_0000_0000_0005L;
    private static final long FP_NEW = 0x6666_0000_0000_0006L;
    private static final long FP_LOCAL = 0x7777_0000_0000_0007L;
    /** In FP_DEL's bucket of table 0 (block 0x0002): one run of the copy with a deleted entry. */
    private static final long FP_BESIDE_DEL = 0x8888_0000_0000_0002L;
    private static final byte[] URL_DROPPED_JOB = hash(1);
    private static final byte[] URL_KEPT_JOB = hash(2);

    @TempDir
    Path dir;

    private ScriptedSource source;
    private Server sourceServer;
    private ShardNode node;

    @BeforeEach
    void start() throws Exception {
        source = new ScriptedSource(List.of(firstChunk()), List.of(laterChunk(), oldGenerationChunk(),
                urls("dropped-job", URL_DROPPED_JOB), urls("kept-job", URL_KEPT_JOB)));
        sourceServer = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)).addService(source).build().start();
        node = new ShardNode(dir, c -> TestShard.SIZING);
    }

    @AfterEach
    void stop() throws InterruptedException {
        source.release.countDown();
        sourceServer.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
        node.close();
    }

    @Test
    void pull_deletesDuringPull_notResurrected_andLocalWritesStay() throws Exception {
        node.bucketAdd(C, 0, 0, new long[]{FP_OLD}); // generation 0 exists here before the pull
        CountDownLatch firstApplied = new CountDownLatch(1);
        CompletableFuture<Long> pull = CompletableFuture.supplyAsync(
                () -> new PartitionPuller(node).pull("127.0.0.1:" + sourceServer.getPort(), ALL, n -> firstApplied.countDown()));
        assertTrue(firstApplied.await(30, TimeUnit.SECONDS));
        assertEquals(1, probe(FP_DEL), "the first chunk is applied before the deletes");

        node.bucketRemove(C, 1, 0, new long[]{FP_DEL, FP_DEL_LATER});
        node.unbindIds(C, new String[]{"id-del", "id-del-later"});
        node.detachIds(C, 1, new long[]{FP_DEL, FP_DEL_LATER}, new String[]{"id-del", "id-del-later"});
        node.bindIds(C, 2, new String[]{"id-rebound"}, new long[]{FP_NEW});
        node.putTexts(C, 2, new String[]{"id-rebound"}, new String[]{"new text"});
        node.bucketAdd(C, 1, 0, new long[]{FP_LOCAL});
        node.dropUrlJob("dropped-job");
        node.expireBefore(C, 1);
        source.release.countDown();
        assertEquals(source.records(), pull.get(30, TimeUnit.SECONDS), "every record handled, skipped ones included");

        assertEquals(0, probe(FP_DEL), "removed during the pull, copied again after");
        assertEquals(0, probe(FP_DEL_LATER), "removed before its copy arrived");
        assertEquals(1, probe(FP_KEEP));
        assertEquals(1, probe(FP_KEEP_LATER), "records nobody deleted are copied");
        assertEquals(1, probe(FP_BESIDE_DEL), "a record copied in one run with a deleted one");
        assertEquals(1, probe(FP_LOCAL), "a local write stays");
        assertEquals(OptionalLong.empty(), binding(1, "id-del"));
        assertEquals(OptionalLong.empty(), binding(1, "id-del-later"));
        assertEquals(OptionalLong.of(FP_KEEP_LATER), binding(1, "id-keep-later"));
        assertEquals(OptionalLong.empty(), binding(1, "id-rebound"), "the copy does not move a rebound id back");
        assertEquals(OptionalLong.of(FP_NEW), binding(2, "id-rebound"));
        assertArrayEquals(new String[0], node.resolveIds(C, new long[]{1}, new long[]{FP_DEL})[0]);
        assertArrayEquals(new String[0], node.resolveIds(C, new long[]{1}, new long[]{FP_DEL_LATER})[0]);
        assertArrayEquals(new String[]{"id-keep-later"}, node.resolveIds(C, new long[]{1}, new long[]{FP_KEEP_LATER})[0]);
        assertArrayEquals(new String[]{"new text", null, "later text"},
                node.getTexts(C, new long[]{1, 2}, new String[]{"id-rebound", "id-del", "id-keep-later"}));
        assertNull(node.collection(C).existing(0), "an expired generation is not recreated by its copy");
        assertArrayEquals(new boolean[]{true}, node.checkUrls("dropped-job", new byte[][]{URL_DROPPED_JOB}, 0, 0, true));
        assertArrayEquals(new boolean[]{false}, node.checkUrls("kept-job", new byte[][]{URL_KEPT_JOB}, 0, 0, true));

        // The tombstones lived as long as that pull: pulling again copies everything.
        new PartitionPuller(node).pull("127.0.0.1:" + sourceServer.getPort(), ALL, n -> { });
        assertEquals(1, probe(FP_DEL));
        assertEquals(OptionalLong.of(FP_DEL_LATER), binding(1, "id-del-later"));
        assertNotNull(node.collection(C).existing(0));
    }

    private int probe(long fp) {
        ShardNode.Matches out = new ShardNode.Matches();
        node.probe(C, new long[]{1}, 0, fp, 0, out);
        return out.fps().size();
    }

    private OptionalLong binding(long generation, String id) {
        var store = node.collection(C).existing(generation);
        return store == null ? OptionalLong.empty() : store.docs().fingerprintOf(id);
    }

    private static ExportChunk firstChunk() {
        return ExportChunk.newBuilder().setCollection(C).setGeneration(1)
                .addBucketTables(0).addBucketFingerprints(FP_KEEP).addBucketTables(0).addBucketFingerprints(FP_DEL)
                .addIds("id-keep").addIdFingerprints(FP_KEEP).addIds("id-del").addIdFingerprints(FP_DEL)
                .addAttachFingerprints(FP_DEL).addAttachIds("id-del")
                .build();
    }

    /** What the source still held after the deletes: its export read those keys earlier. */
    private static ExportChunk laterChunk() {
        return ExportChunk.newBuilder().setCollection(C).setGeneration(1)
                .addBucketTables(0).addBucketFingerprints(FP_DEL).addBucketTables(0).addBucketFingerprints(FP_BESIDE_DEL)
                .addBucketTables(0).addBucketFingerprints(FP_DEL_LATER).addBucketTables(0).addBucketFingerprints(FP_KEEP_LATER)
                .addIds("id-del").addIdFingerprints(FP_DEL).addIds("id-del-later").addIdFingerprints(FP_DEL_LATER)
                .addIds("id-rebound").addIdFingerprints(FP_OLD).addIds("id-keep-later").addIdFingerprints(FP_KEEP_LATER)
                .addAttachFingerprints(FP_DEL).addAttachIds("id-del").addAttachFingerprints(FP_DEL_LATER).addAttachIds("id-del-later")
                .addAttachFingerprints(FP_KEEP_LATER).addAttachIds("id-keep-later")
                .addTextIds("id-rebound").addTexts("old text").addTextIds("id-del").addTexts("deleted text")
                .addTextIds("id-keep-later").addTexts("later text")
                .build();
    }

    private static ExportChunk oldGenerationChunk() {
        return ExportChunk.newBuilder().setCollection(C).setGeneration(0).addBucketTables(1).addBucketFingerprints(FP_OLD).build();
    }

    private static ExportChunk urls(String job, byte[] hash) {
        return ExportChunk.newBuilder().setUrlJob(job).addUrlHashes(ByteString.copyFrom(hash)).addUrlExpires(Long.MAX_VALUE).build();
    }

    private static byte[] hash(int seed) {
        byte[] h = new byte[16];
        h[0] = (byte) seed;
        h[15] = (byte) (seed * 31);
        return h;
    }

    /** A peer whose export sends {@code first}, waits for {@link #release}, then sends {@code rest}. */
    private static final class ScriptedSource extends ShardControlGrpc.ShardControlImplBase {
        final CountDownLatch release = new CountDownLatch(1);
        private final List<ExportChunk> first;
        private final List<ExportChunk> rest;

        ScriptedSource(List<ExportChunk> first, List<ExportChunk> rest) {
            this.first = first;
            this.rest = rest;
        }

        long records() {
            return IntStream.range(0, 2).mapToObj(i -> i == 0 ? first : rest).flatMap(List::stream)
                    .mapToLong(c -> ChunkApplier.ChunkCheck.check(c, PartitionSet.of(ALL))).sum();
        }

        @Override
        public void exportPartitions(PartitionsRequest req, StreamObserver<ExportChunk> out) {
            first.forEach(out::onNext);
            try {
                if (!release.await(30, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("test never released the export");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            rest.forEach(out::onNext);
            out.onCompleted();
        }
    }
}
