package io.simdex.ops;

import io.simdex.ops.cluster.ClusterRouter;
import io.simdex.proto.v1.SimdexGrpc;
import io.simdex.router.api.Catalog;
import io.simdex.router.api.RetentionSweeper;
import io.simdex.router.api.SimdexService;
import io.simdex.router.clock.ClusterClock;
import io.simdex.router.cluster.ClusterConfig;
import io.simdex.router.config.ConfigSchema;
import io.simdex.router.index.IndexRouter;
import io.simdex.router.metrics.MetricsEndpoint;
import io.simdex.router.security.ServerSecurity;
import io.simdex.router.shard.Placement;
import io.simdex.router.shard.RemoteShardClient;
import io.simdex.router.shard.ShardChannels;
import io.simdex.router.shard.ShardClient;
import io.simdex.router.transport.HandlerThreads;
import io.simdex.router.transport.PublicServer;
import io.simdex.server.tls.PeerCredentials;
import io.simdex.server.tls.TlsFiles;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;

/**
 * A router in its own process: in a cluster ({@code --config}), an Atomix member routing by the
 * partition map with replicas; otherwise in front of unreplicated shards at fixed addresses.
 */
@Command(name = "router", mixinStandardHelpOptions = true,
        description = {"Run a router: of a cluster (--config), or in front of fixed shard processes (--shard).",
                "Cluster settings: flag (--set KEY=VALUE) > environment (SIMDEX_KEY) > --config FILE > default."})
final class RouterCommand implements Callable<Integer> {
    @Mixin
    ConfigOptions config;

    @Option(names = "--shard", split = ",",
            description = "Without a cluster: shard addresses host:port, in shard order; the order fixes placement.")
    List<String> shards;

    @Option(names = "--data", defaultValue = "data/router", description = "Router directory for the collection catalog (default: ${DEFAULT-VALUE}).")
    Path data;

    @Option(names = "--host", defaultValue = "127.0.0.1", description = "Address to listen on (default: ${DEFAULT-VALUE}).")
    String host;

    @Option(names = "--port", defaultValue = "7411", description = "Public gRPC port (default: ${DEFAULT-VALUE}).")
    int port;

    @Option(names = "--threads", description = "gRPC handler threads with --shard (default: unbounded, since handlers wait on remote shards).")
    Integer threads;

    @Mixin
    MetricsOption metrics;

    @Mixin
    TlsOptions tls;

    @Mixin
    AuthFileOption auth;

    @Option(names = "--shard-ca", paramLabel = "FILE",
            description = "With --shard: reach the shards over TLS, trusting this CA and presenting --tls-cert and --tls-key to them.")
    Path shardCa;

    @Override
    public Integer call() throws Exception {
        if (config.file != null) {
            return cluster();
        }
        if (!config.set.isEmpty()) {
            throw new picocli.CommandLine.ParameterException(new picocli.CommandLine(this), "--set is for a cluster router (--config)");
        }
        if (shards == null || shards.isEmpty()) {
            throw new picocli.CommandLine.ParameterException(new picocli.CommandLine(this), "give --config (cluster) or --shard (fixed shards)");
        }
        ServerSecurity security = tls.security(auth.file);
        PeerCredentials toShards = shardCa == null ? PeerCredentials.PLAINTEXT
                : PeerCredentials.mutualTls(new TlsFiles(tls.cert, tls.key, shardCa));
        List<ShardClient> clients = new ArrayList<>();
        Map<String, io.grpc.Channel> channels = new java.util.LinkedHashMap<>();
        for (String address : shards) {
            RemoteShardClient shard = new RemoteShardClient(ShardChannels.forTarget(address, toShards.channel()));
            clients.add(shard);
            channels.put(address, shard.channel());
        }
        IndexRouter index = new IndexRouter(clients, Placement.roundRobin(clients.size()));
        // Several routers may serve the same shards: the shards' clocks decide generations, as in a cluster.
        ClusterClock clock = ClusterClock.start(() -> channels, Clock.systemUTC(), ClusterConfig.DEFAULT_CLOCK_SKEW_MILLIS);
        SimdexService service = new SimdexService(index, new Catalog(data), clock);
        PublicServer server = PublicServer.start(host, port, service.bindService(), SimdexGrpc.SERVICE_NAME, List.of(),
                threads == null ? HandlerThreads.UNBOUNDED : threads, Map.of(), service.handlingTimes(), security);
        RetentionSweeper sweeper = RetentionSweeper.start(service, Set.of());
        MetricsEndpoint endpoint = metrics.start(host);
        if (endpoint != null) {
            service.handlingTimes().publishTo(endpoint.grpcCalls());
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            if (endpoint != null) {
                endpoint.close();
            }
            sweeper.close();
            server.close();
            clock.close();
            index.close();
        }, "router-shutdown"));
        MetricsOption.announce("simdex router", host, endpoint);
        System.err.printf("simdex router: %d shards %s, listening on %s:%d%n", clients.size(), shards, host, server.port());
        server.awaitTermination();
        return 0;
    }

    private int cluster() throws Exception {
        ConfigOptions.Flags flags = new ConfigOptions.Flags();
        metrics.addTo(flags);
        ClusterConfig c = ClusterConfig.of(config.resolve(ConfigSchema.CLUSTER, flags.list()));
        ClusterRouter router = ClusterRouter.start(c);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                router.close();
            } catch (Exception e) {
                System.err.println("simdex router: shutdown: " + e);
            }
        }, "router-shutdown"));
        MetricsOption.announce("simdex router " + c.id(), c.host(), router.metrics());
        System.err.printf("simdex router %s: cluster of %s, listening on %s:%d%n", c.id(), c.seeds().size() + " seeds", c.host(), router.port());
        router.awaitTermination();
        return 0;
    }
}
