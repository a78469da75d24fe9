package io.simdex.loadtest.jmh;

import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.simdex.loadtest.store.StoreFixture;
import io.simdex.proto.v1.SimdexGrpc;
import io.simdex.router.EmbeddedSimdex;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The embedded default in a temporary directory, its API over in-process gRPC with direct
 * executors: a call runs in the caller's thread (local shards answer there too), so a tool can
 * charge it the thread's CPU time. Closing stops both and deletes the directory.
 */
final class InProcessSimdex implements AutoCloseable {
    private final Path dir;
    private final EmbeddedSimdex simdex;
    private final Server server;
    private final ManagedChannel channel;

    private InProcessSimdex(Path dir, EmbeddedSimdex simdex, Server server, ManagedChannel channel) {
        this.dir = dir;
        this.simdex = simdex;
        this.server = server;
        this.channel = channel;
    }

    /** Four shards sized for {@code expected} documents, in a new directory named after {@code tool}. */
    static InProcessSimdex start(String tool, long expected) throws IOException {
        Path dir = Files.createTempDirectory("simdex-" + tool);
        EmbeddedSimdex simdex = null;
        try {
            simdex = EmbeddedSimdex.start(dir, 4, "127.0.0.1", 0, expected);
            String name = InProcessServerBuilder.generateName();
            Server server = InProcessServerBuilder.forName(name).directExecutor().addService(simdex.service()).build().start();
            return new InProcessSimdex(dir, simdex, server, InProcessChannelBuilder.forName(name).directExecutor().build());
        } catch (IOException | RuntimeException e) {
            if (simdex != null) {
                simdex.close();
            }
            StoreFixture.delete(dir);
            throw e;
        }
    }

    /** The data directory: {@code shard-N/COLLECTION/} under it hold each collection's files. */
    Path dir() {
        return dir;
    }

    SimdexGrpc.SimdexBlockingStub stub() {
        return SimdexGrpc.newBlockingStub(channel);
    }

    @Override
    public void close() {
        channel.shutdownNow();
        server.shutdownNow();
        simdex.close();
        StoreFixture.delete(dir);
    }
}
