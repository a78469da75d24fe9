package io.simdex.server;

import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.simdex.proto.v1.ShardControlGrpc;
import io.simdex.server.tls.PeerCredentials;

import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/** One short call to a peer's ShardControl service, on a channel of its own closed after it (a catch-up asks each peer once). */
final class PeerControl {
    private static final long DEADLINE_SECONDS = 30;

    private PeerControl() {
    }

    /** {@code call} on a blocking stub of {@code peer} ("host:port") with a 30 s deadline. */
    static <T> T call(String peer, PeerCredentials credentials, Function<ShardControlGrpc.ShardControlBlockingStub, T> call) {
        ManagedChannel channel = NettyChannelBuilder.forTarget(peer, credentials.channel()).build();
        try {
            return call.apply(ShardControlGrpc.newBlockingStub(channel).withDeadlineAfter(DEADLINE_SECONDS, TimeUnit.SECONDS));
        } finally {
            channel.shutdownNow();
        }
    }
}
