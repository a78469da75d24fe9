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
import io.simdex.router.transport.InlineCalls;
import io.simdex.router.transport.PublicServer;
import io.simdex.server.tls.PeerCredentials;
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
 * A router in its own process: in a cluster, an Atomix member routing by the partition map with
 * replicas ({@link ConfigSchema#CLUSTER}); with {@code shard.addresses} set ({@code --shard}), in front
 * of unreplicated shards at fixed addresses ({@link ConfigSchema#FIXED_ROUTER}). Either way every flag
 * is a config key, and a flag wins over {@code SIMDEX_KEY}, which wins over {@code --config}.
 */
@Command(name = "router", mixinStandardHelpOptions = true,
        description = {"Run a router: of a cluster (--config), or in front of fixed shard processes (--shard, key shard.addresses).",
                "Settings: flag (--set KEY=VALUE) > environment (SIMDEX_KEY) > --config FILE > default."})
final class RouterCommand implements Callable<Integer> {
    @Mixin
    ConfigOptions config;

    @Option(names = "--shard", split = ",",
            description = "Without a cluster: shard addresses host:port, in shard order; the order fixes placement (key shard.addresses).")
    List<String> shards;

    @Option(names = "--data", description = "Router directory for the collection catalog (key data; default with --shard: data/router).")
    Path data;

    @Option(names = "--host", description = "Address to listen on (key host; default: 127.0.0.1).")
    String host;

    @Option(names = "--port", description = "Public gRPC port (key port; default with --shard: 7411).")
    Integer port;

    @Option(names = "--threads",
            description = "gRPC handler threads (key handler.threads; default: 0, gRPC's unbounded pool, since handlers wait on remote shards).")
    Integer threads;

    @Mixin
    MetricsOption metrics;

    @Mixin
    TlsOptions tls;

    @Mixin
    AuthFileOption auth;

    @Option(names = "--shard-ca", paramLabel = "FILE",
            description = "With --shard: reach the shards over TLS, trusting this CA and presenting --tls-cert and --tls-key to them"
                    + " (key tls.shard.ca).")
    Path shardCa;

    @Override
    public Integer call() throws Exception {
        ConfigSchema schema = config.routerSchema(shards != null, System.getenv());
        if (schema == ConfigSchema.CLUSTER) {
            if (config.file == null) {
                throw new picocli.CommandLine.ParameterException(new picocli.CommandLine(this),
                        "give --config (cluster) or --shard (fixed shards)");
            }
            return cluster();
        }
        FixedRouterSettings s = FixedRouterSettings.of(config.resolve(schema, flags().list()));
        ServerSecurity security = TlsOptions.security(s.settings());
        PeerCredentials toShards = s.toShards();
        List<ShardClient> clients = new ArrayList<>();
        Map<String, io.grpc.Channel> channels = new java.util.LinkedHashMap<>();
        for (String address : s.shards()) {
            RemoteShardClient shard = new RemoteShardClient(ShardChannels.forTarget(address, toShards.channel()),
                    () -> ShardChannels.forTarget(address, toShards.channel()));
            clients.add(shard);
            channels.put(address, shard.channel());
        }
        IndexRouter index = new IndexRouter(clients, Placement.roundRobin(clients.size()), clients, 1, true, null, s.dedupLeaseMillis());
        // Several routers may serve the same shards: the shards' clocks decide generations, as in a cluster.
        ClusterClock clock = ClusterClock.start(() -> channels, Clock.systemUTC(), ClusterConfig.DEFAULT_CLOCK_SKEW_MILLIS);
        Catalog catalog = new Catalog(s.data());
        SimdexService service = new SimdexService(index, catalog, clock);
        PublicServer server = PublicServer.start(s.host(), s.port(), service.bindService(), SimdexGrpc.SERVICE_NAME, List.of(),
                s.handlerThreads(), InlineCalls.routerReads(catalog::cached), service.handlingTimes(), security);
        RetentionSweeper sweeper = RetentionSweeper.start(service, Set.of());
        MetricsEndpoint endpoint = MetricsOption.start(s.host(), s.metricsPort());
        if (endpoint != null) {
            service.handlingTimes().publishTo(endpoint.grpcCalls());
            service.outcomes().bindTo(endpoint);
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
        MetricsOption.announce("simdex router", s.host(), endpoint);
        System.err.printf("simdex router: %d shards %s, listening on %s:%d%n", clients.size(), s.shards(), s.host(), server.port());
        server.awaitTermination();
        return 0;
    }

    private int cluster() throws Exception {
        ClusterConfig c = ClusterConfig.of(config.resolve(ConfigSchema.CLUSTER, flags().list()));
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

    /** The flags given, as keys of either schema; a cluster router refuses --shard-ca, which it has no key for. */
    private ConfigOptions.Flags flags() {
        ConfigOptions.Flags f = new ConfigOptions.Flags().put("shard.addresses", shards == null ? null : String.join(",", shards), "--shard")
                .put("data", data, "--data").put("host", host, "--host").put("port", port, "--port").put("handler.threads", threads, "--threads")
                .put("tls.shard.ca", shardCa, "--shard-ca");
        metrics.addTo(f);
        tls.addTo(f);
        auth.addTo(f);
        return f;
    }
}
