package io.simdex.ops;

import io.simdex.router.EmbeddedSimdex;
import io.simdex.router.transport.HandlerThreads;
import io.simdex.server.Durability;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.concurrent.Callable;

/** The embedded default: router and shards in this JVM, one gRPC port. */
@Command(name = "embedded", mixinStandardHelpOptions = true,
        description = "Run the router and its shards in one process on one gRPC port.")
final class EmbeddedCommand implements Callable<Integer> {
    @Option(names = "--data", defaultValue = "data", description = "Data directory (default: ${DEFAULT-VALUE}).")
    Path data;

    @Option(names = "--host", defaultValue = "127.0.0.1", description = "Address to listen on (default: ${DEFAULT-VALUE}; 0.0.0.0 for all).")
    String host;

    @Option(names = "--port", defaultValue = "7411", description = "gRPC port (default: ${DEFAULT-VALUE}).")
    int port;

    @Option(names = "--shards", defaultValue = "4", description = "Shards, fixed at first start (default: ${DEFAULT-VALUE}).")
    int shards;

    @Option(names = "--expected", defaultValue = "1000000",
            description = "Documents a new collection is sized for; larger collections still work (default: ${DEFAULT-VALUE}).")
    long expected;

    @Option(names = "--threads", description = "gRPC handler threads (default: one per core; 0: gRPC's unbounded pool).")
    Integer threads;

    @Option(names = "--inline-reads", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = {"Handle small fingerprint queries (up to about 20 probes) on the network thread that read them,",
                    "without a hand-off to a handler thread; --no-inline-reads sends every call to the handler threads",
                    "(default: on; never with --threads 0)."})
    boolean inlineReads;

    @Option(names = "--durability", defaultValue = "process", converter = DurabilityConverter.class,
            description = DurabilityConverter.DESCRIPTION)
    Durability durability;

    @Mixin
    MetricsOption metrics;

    @Mixin
    TlsOptions tls;

    @Mixin
    AuthFileOption auth;

    @Override
    public Integer call() throws InterruptedException {
        EmbeddedSimdex simdex = EmbeddedSimdex.start(data, shards, host, port, expected,
                HandlerThreads.orPerCore(threads), inlineReads, java.time.Clock.systemUTC(), durability, tls.security(auth.file));
        Runtime.getRuntime().addShutdownHook(new Thread(simdex::close, "simdex-shutdown"));
        if (metrics.given()) {
            MetricsOption.announce("simdex embedded", host, simdex.serveMetrics(host, metrics.port()));
        }
        System.err.printf("simdex embedded: %d shards, data in %s, durability %s, listening on %s:%d%n",
                simdex.index().shardCount(), data.toAbsolutePath(), durability.label(), host, simdex.port());
        simdex.awaitTermination();
        return 0;
    }
}
