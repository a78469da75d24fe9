package io.simdex.ops;

import io.grpc.Server;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import io.simdex.proto.v1.ShardControlGrpc;
import io.simdex.proto.v1.ShardGrpc;
import io.simdex.router.metrics.MetricsEndpoint;
import io.simdex.router.metrics.StoreMetrics;
import io.simdex.router.transport.PublicServer;
import io.simdex.server.Durability;
import io.simdex.server.ShardControlService;
import io.simdex.server.ShardNode;
import io.simdex.server.ShardService;
import io.simdex.server.store.StoreSizing;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

/** One shard node in its own process, serving the shard protocol to routers. */
@Command(name = "shard", mixinStandardHelpOptions = true, description = "Run one shard node serving the internal Shard service.")
final class ShardCommand implements Callable<Integer> {
    @Option(names = "--data", required = true, description = "This shard's data directory.")
    Path data;

    @Option(names = "--host", defaultValue = "127.0.0.1", description = "Address to listen on (default: ${DEFAULT-VALUE}).")
    String host;

    @Option(names = "--port", required = true, description = "gRPC port for routers.")
    int port;

    @Option(names = "--shards", defaultValue = "4", description = "Shards in the cluster, for sizing (default: ${DEFAULT-VALUE}).")
    int shards;

    @Option(names = "--expected", defaultValue = "1000000", description = "Documents a new collection is sized for; it grows past that by adding maps (default: ${DEFAULT-VALUE}).")
    long expected;

    @Option(names = "--durability", defaultValue = "process", converter = DurabilityConverter.class,
            description = DurabilityConverter.DESCRIPTION)
    Durability durability;

    @Mixin
    MetricsOption metrics;

    @Override
    public Integer call() throws Exception {
        StoreSizing sizing = StoreSizing.forShare(expected, shards, 24);
        ShardNode node = new ShardNode(data, c -> sizing, durability);
        node.openStored();
        HealthStatusManager health = new HealthStatusManager();
        NettyServerBuilder builder = NettyServerBuilder.forAddress(new InetSocketAddress(host, port));
        MetricsEndpoint endpoint = metrics.start(host);
        if (endpoint != null) {
            builder.addStreamTracerFactory(endpoint.grpcCalls());
            StoreMetrics.bind(endpoint, List.of(node));
        }
        Server server = builder
                .addService(new ShardService(node))
                .addService(new ShardControlService(node))
                .addService(health.getHealthService())
                .maxInboundMessageSize(PublicServer.MAX_MESSAGE_BYTES)
                .build().start();
        health.setStatus("", ServingStatus.SERVING);
        health.setStatus(ShardGrpc.SERVICE_NAME, ServingStatus.SERVING);
        health.setStatus(ShardControlGrpc.SERVICE_NAME, ServingStatus.SERVING);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            health.enterTerminalState();
            server.shutdown();
            try {
                server.awaitTermination(10, java.util.concurrent.TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (endpoint != null) {
                endpoint.close();
            }
            node.close();
        }, "shard-shutdown"));
        MetricsOption.announce("simdex shard", host, endpoint);
        System.err.printf("simdex shard: data in %s, durability %s, listening on %s:%d%n", data.toAbsolutePath(), durability.label(),
                host, server.getPort());
        server.awaitTermination();
        return 0;
    }
}
