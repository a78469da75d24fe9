package io.simdex.router;

import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.simdex.proto.v1.InsertRequest;
import io.simdex.proto.v1.Match;
import io.simdex.proto.v1.SimdexGrpc;
import io.simdex.router.transport.HandlerThreads;
import io.simdex.server.Durability;
import io.simdex.server.ShardNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The embedded server with {@code --durability fsync}: writes go through each shard's log and are
 * answered once it is forced, and a clean stop leaves none.
 */
class EmbeddedDurabilityTest {
    @TempDir
    Path dir;

    @Test
    void fsync_insertThenRestart_documentsKeptAndLogsCheckpointed() throws Exception {
        try (EmbeddedSimdex simdex = start()) {
            withStub(simdex, stub -> {
                InsertRequest.Builder req = InsertRequest.newBuilder();
                for (int i = 0; i < 100; i++) {
                    req.addDocuments(Calls.doc("d" + i, 0x9E3779B97F4A7C15L * (i + 1)));
                }
                assertEquals(100, stub.insert(req.build()).getInserted());
            });
            assertTrue(logBytes() > 0, "no write-ahead log records after an insert");
        }
        assertEquals(0, logBytes(), "a clean stop left log segments");
        try (EmbeddedSimdex simdex = start()) {
            withStub(simdex, stub -> {
                List<Match> found = Calls.query(stub, 0x9E3779B97F4A7C15L * 7, 0);
                assertEquals("d6", found.get(0).getId());
            });
        }
    }

    /**
     * Each insert is answered only once every shard's log is forced up to its records: with one
     * writer, the forces are then complete as the answer arrives, and a wait for what the shards
     * hold is over at once.
     */
    @Test
    void fsync_eachInsertAnswered_onlyOnceEveryShardsLogIsForced() throws Exception {
        try (EmbeddedSimdex simdex = start()) {
            withStub(simdex, stub -> {
                for (int i = 0; i < 50; i++) {
                    assertEquals(1, stub.insert(InsertRequest.newBuilder().addDocuments(Calls.doc("d" + i, 0x9E3779B97F4A7C15L * (i + 1)))
                            .build()).getInserted());
                    for (ShardNode node : simdex.nodes()) {
                        assertTrue(node.durable().isDone(), "insert " + i + " answered before a shard's log was forced");
                    }
                }
            });
            long forces = simdex.nodes().stream().mapToLong(n -> n.logStats().forces()).sum();
            assertTrue(forces >= 50, "each answer waited for a force: " + forces + " forces");
        }
    }

    private EmbeddedSimdex start() {
        return EmbeddedSimdex.start(dir, 2, "127.0.0.1", 0, 10_000, HandlerThreads.perCore(), true, Clock.systemUTC(), Durability.FSYNC);
    }

    private long logBytes() throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(p -> p.toString().endsWith(".wal")).mapToLong(p -> p.toFile().length()).sum();
        }
    }

    private interface StubUse {
        void accept(SimdexGrpc.SimdexBlockingStub stub) throws Exception;
    }

    private static void withStub(EmbeddedSimdex simdex, StubUse use) throws Exception {
        ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", simdex.port()).usePlaintext().build();
        try {
            use.accept(SimdexGrpc.newBlockingStub(channel).withDeadlineAfter(60, TimeUnit.SECONDS));
        } finally {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }
}
