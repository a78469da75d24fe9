package io.simdex.ops;

import io.grpc.Server;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import io.simdex.proto.v1.ShardControlGrpc;
import io.simdex.proto.v1.ShardGrpc;
import io.simdex.router.metrics.MetricsEndpoint;
import io.simdex.router.config.ConfigSchema;
import io.simdex.router.config.Settings;
import io.simdex.router.metrics.StoreMetrics;
import io.simdex.router.security.ServerSecurity;
import io.simdex.router.transport.HandlerThreads;
import io.simdex.server.Durability;
import io.simdex.server.NodeState;
import io.simdex.server.ShardControlService;
import io.simdex.server.ShardNode;
import io.simdex.server.ShardService;
import io.simdex.server.StreamedRequests;
import io.simdex.server.grpc.ServerBounds;
import io.simdex.server.store.StoreSizing;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;

/**
 * One shard node in its own process, serving the shard protocol to routers. Every flag is a config key
 * ({@link ConfigSchema#SHARD}); a flag wins over {@code SIMDEX_KEY}, which wins over {@code --config}.
 */
@Command(name = "shard", mixinStandardHelpOptions = true,
        description = {"Run one shard node serving the internal Shard service.",
                "Settings: flag (--set KEY=VALUE) > environment (SIMDEX_KEY) > --config FILE > default."})
final class ShardCommand implements Callable<Integer> {
    @Mixin
    ConfigOptions config;

    @Option(names = "--data", description = "This shard's data directory (key data; required).")
    Path data;

    @Option(names = "--host", description = "Address to listen on (key host; default: 127.0.0.1).")
    String host;

    @Option(names = "--port", description = "gRPC port for routers (key port; required).")
    Integer port;

    @Option(names = "--shards", description = "Shards in the cluster, for sizing (key shards; default: 4).")
    Integer shards;

    @Option(names = "--expected",
            description = "Documents a new collection is sized for; it grows past that by adding maps (key expected; default: 1000000).")
    Long expected;

    @Option(names = "--durability", converter = DurabilityConverter.class,
            description = DurabilityConverter.CHOICES + " (default: process). Key: durability.")
    Durability durability;

    @Mixin
    MetricsOption metrics;

    @Mixin
    TlsOptions tls;

    @Override
    public Integer call() throws Exception {
        Settings settings = config.resolve(ConfigSchema.SHARD, flags().list());
        ShardSettings s = ShardSettings.of(settings);
        ServerSecurity security = TlsOptions.security(settings); // routers send no tokens: tls.client.ca admits them
        security.checkListen(s.host());
        StoreSizing sizing = StoreSizing.forShare(s.expected(), s.shards(), 24);
        ShardNode node = new ShardNode(s.data(), c -> sizing, s.durability());
        node.openStored();
        HealthStatusManager health = new HealthStatusManager();
        NettyServerBuilder builder = ServerBounds.apply(NettyServerBuilder.forAddress(new InetSocketAddress(s.host(), s.port()), security.credentials()));
        MetricsEndpoint endpoint = MetricsOption.start(s.host(), s.metricsPort());
        if (endpoint != null) {
            builder.addStreamTracerFactory(endpoint.grpcCalls());
            StoreMetrics.bind(endpoint, List.of(node));
        }
        // gRPC's unbounded pool, named: handlers may wait for other routers' unlocks, and writes
        // that wait for a force of the log are answered from it too.
        ExecutorService handlers = HandlerThreads.unbounded("shard-handler");
        Server server = builder
                .executor(handlers)
                .addService(ServerBounds.lenient(new ShardService(node, NodeState.standalone(), StreamedRequests.NONE, handlers).bindService()))
                .addService(ServerBounds.lenient(new ShardControlService(node).bindService()))
                .addService(health.getHealthService())
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
            HandlerThreads.stop(handlers);
            node.close();
        }, "shard-shutdown"));
        MetricsOption.announce("simdex shard", s.host(), endpoint);
        System.err.printf("simdex shard: data in %s, durability %s, listening on %s:%d%n", s.data().toAbsolutePath(),
                s.durability().label(), s.host(), server.getPort());
        server.awaitTermination();
        return 0;
    }

    private ConfigOptions.Flags flags() {
        ConfigOptions.Flags f = new ConfigOptions.Flags().put("data", data, "--data").put("host", host, "--host").put("port", port, "--port")
                .put("shards", shards, "--shards").put("expected", expected, "--expected")
                .put("durability", durability == null ? null : durability.label(), "--durability");
        metrics.addTo(f);
        tls.addTo(f);
        return f;
    }
}
