package io.simdex.server;

import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.MetadataUtils;
import io.simdex.proto.v1.ShardControlGrpc;
import io.simdex.proto.v1.ShardGrpc;
import io.simdex.server.grpc.ServerBounds;
import io.simdex.server.store.StoreSizing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** A shard node behind its fenced gRPC service on a loopback port, with a client channel to it. */
final class TestShard implements AutoCloseable {
    /** Small maps: every generation holds at most ~12K fingerprints in these tests. */
    static final StoreSizing SIZING = new StoreSizing(12_000, 16_000, 131_072, 12);

    final ShardNode node;
    final NodeState state;
    private final Server server;
    private final ManagedChannel channel;

    TestShard(Path dir, NodeState state) {
        this.node = new ShardNode(dir, c -> SIZING);
        this.state = state;
        try {
            server = ServerBounds.apply(NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)))
                    .addService(ServerBounds.lenient(ShardService.withFence(node, state)))
                    .addService(ServerBounds.lenient(ShardControlService.withFence(node, state))).build().start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        channel = NettyChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext()
                .maxInboundMessageSize(ShardService.MAX_MESSAGE_BYTES).build();
    }

    /**
     * Leaves an intent pending here, as a Dedup holder does that locked {@code keys} of
     * {@code collection}, recorded its intent (documents {1, 2, 3}) and stopped before its unlock
     * with the intent done.
     */
    void leavePending(String collection, int[] keys, long token) throws InterruptedException {
        long stamp = node.lockBuckets(collection, keys, token, 10_000, 1_000).stamp();
        org.junit.jupiter.api.Assertions.assertEquals(keys.length, node.recordIntent(collection, keys, token, stamp + 1, new byte[]{1, 2, 3}));
        node.unlockBuckets(collection, keys, token, stamp + 1, true);
    }

    String target() {
        return "127.0.0.1:" + server.getPort();
    }

    ShardGrpc.ShardBlockingStub stub() {
        return ShardGrpc.newBlockingStub(channel).withDeadlineAfter(60, TimeUnit.SECONDS);
    }

    /** A stub whose calls can be cancelled, as a router that gives up or dies cancels them. */
    ShardGrpc.ShardFutureStub futureStub() {
        return ShardGrpc.newFutureStub(channel).withDeadlineAfter(60, TimeUnit.SECONDS);
    }

    /** A stub stamping every call with placement epoch {@code epoch}. */
    ShardGrpc.ShardBlockingStub stub(String epoch) {
        return stub().withInterceptors(stamp(epoch));
    }

    ShardControlGrpc.ShardControlBlockingStub control() {
        return ShardControlGrpc.newBlockingStub(channel).withDeadlineAfter(60, TimeUnit.SECONDS);
    }

    /** A control stub stamping every call with placement epoch {@code epoch}. */
    ShardControlGrpc.ShardControlBlockingStub control(String epoch) {
        return control().withInterceptors(stamp(epoch));
    }

    private static io.grpc.ClientInterceptor stamp(String epoch) {
        Metadata headers = new Metadata();
        headers.put(EpochFence.HEADER, epoch);
        return MetadataUtils.newAttachHeadersInterceptor(headers);
    }

    @Override
    public void close() throws InterruptedException {
        channel.shutdownNow();
        server.shutdownNow();
        server.awaitTermination(10, TimeUnit.SECONDS);
        node.close();
    }
}
