package io.simdex.router.shard;

import com.google.gson.Gson;
import io.grpc.ChannelCredentials;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.simdex.router.transport.PublicServer;

import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * Channels from a router to shard processes. Every shard RPC is idempotent, so UNAVAILABLE is
 * retried by gRPC itself, from {@code shard_service_config.json} (5 attempts, 0.2 s to 2 s
 * apart): a shard that restarts is reached again within a second or two instead of failing
 * requests for the length of the channel's reconnect backoff.
 *
 * <p>Answers are handed over on the network thread that read them ({@code directExecutor}): the
 * callbacks only convert the answer and complete a future, which wakes the request's thread.
 * gRPC's default executor would add a thread hand-off per shard answer, and on a loaded host each
 * hand-off is a wake-up that waits for a core. So nothing chained on a shard call may block.
 */
public final class ShardChannels {
    private static final Map<String, ?> SERVICE_CONFIG = load();

    private ShardChannels() {
    }

    public static ManagedChannel forTarget(String address) {
        return forTarget(address, InsecureChannelCredentials.create());
    }

    /** As {@link #forTarget(String)}, with {@code credentials} (TLS to shards that serve it). */
    public static ManagedChannel forTarget(String address, ChannelCredentials credentials) {
        return NettyChannelBuilder.forTarget(address, credentials)
                .maxInboundMessageSize(PublicServer.MAX_MESSAGE_BYTES)
                .defaultServiceConfig(SERVICE_CONFIG)
                .enableRetry()
                .directExecutor()
                .build();
    }

    /**
     * For a cluster router: no retries on the channel, because a replica set fails over to
     * another replica at once instead of waiting out a dead node's backoff.
     */
    public static ManagedChannel forReplica(String address) {
        return forReplica(address, InsecureChannelCredentials.create());
    }

    /** As {@link #forReplica(String)}, with {@code credentials} (mutual TLS in a cluster that has it). */
    public static ManagedChannel forReplica(String address, ChannelCredentials credentials) {
        return NettyChannelBuilder.forTarget(address, credentials)
                .maxInboundMessageSize(PublicServer.MAX_MESSAGE_BYTES)
                .disableRetry()
                .directExecutor()
                .build();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, ?> load() {
        try (InputStream in = ShardChannels.class.getResourceAsStream("shard_service_config.json")) {
            return new Gson().fromJson(new InputStreamReader(in, StandardCharsets.UTF_8), Map.class);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
