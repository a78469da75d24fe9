package io.simdex.ops;

import io.simdex.proto.v1.SimdexGrpc;
import io.simdex.router.Catalog;
import io.simdex.router.IndexRouter;
import io.simdex.router.Placement;
import io.simdex.router.PublicServer;
import io.simdex.router.RemoteShardClient;
import io.simdex.router.RetentionSweeper;
import io.simdex.router.ShardChannels;
import io.simdex.router.ShardClient;
import io.simdex.router.SimdexService;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/** A router in its own process, talking gRPC to shard nodes at fixed addresses. */
@Command(name = "router", mixinStandardHelpOptions = true,
        description = "Run a router in front of shard processes (the same router code as the embedded default).")
final class RouterCommand implements Callable<Integer> {
    @Option(names = "--shard", required = true, split = ",",
            description = "Shard addresses host:port, in shard order; the order fixes placement.")
    List<String> shards;

    @Option(names = "--data", defaultValue = "data/router", description = "Router directory for the collection catalog (default: ${DEFAULT-VALUE}).")
    Path data;

    @Option(names = "--host", defaultValue = "127.0.0.1", description = "Address to listen on (default: ${DEFAULT-VALUE}).")
    String host;

    @Option(names = "--port", defaultValue = "7411", description = "Public gRPC port (default: ${DEFAULT-VALUE}).")
    int port;

    @Override
    public Integer call() throws InterruptedException {
        List<ShardClient> clients = new ArrayList<>();
        for (String address : shards) {
            clients.add(new RemoteShardClient(ShardChannels.forTarget(address)));
        }
        IndexRouter index = new IndexRouter(clients, Placement.roundRobin(clients.size()));
        SimdexService service = new SimdexService(index, new Catalog(data), Clock.systemUTC());
        PublicServer server = PublicServer.start(host, port,
                io.grpc.ServerInterceptors.intercept(service, service.handlingTimes()), SimdexGrpc.SERVICE_NAME);
        RetentionSweeper sweeper = RetentionSweeper.start(service);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            sweeper.close();
            server.close();
            index.close();
        }, "router-shutdown"));
        System.err.printf("simdex router: %d shards %s, listening on %s:%d%n", clients.size(), shards, host, server.port());
        server.awaitTermination();
        return 0;
    }
}
