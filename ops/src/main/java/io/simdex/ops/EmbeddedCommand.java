package io.simdex.ops;

import io.simdex.router.EmbeddedSimdex;
import io.simdex.router.config.ConfigSchema;
import io.simdex.server.Durability;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.concurrent.Callable;

/**
 * The embedded default: router and shards in this JVM, one gRPC port. Every flag is a config key
 * ({@link ConfigSchema#EMBEDDED}); a flag wins over {@code SIMDEX_KEY}, which wins over {@code --config}.
 */
@Command(name = "embedded", mixinStandardHelpOptions = true,
        description = {"Run the router and its shards in one process on one gRPC port.",
                "Settings: flag > environment (SIMDEX_KEY) > --config FILE > default."})
final class EmbeddedCommand implements Callable<Integer> {
    @Mixin
    ConfigOptions config;

    @Option(names = "--data", description = "Data directory (key data; default: data).")
    Path data;

    @Option(names = "--host", description = "Address to listen on (key host; default: 127.0.0.1; 0.0.0.0 for all).")
    String host;

    @Option(names = "--port", description = "gRPC port (key port; default: 7411).")
    Integer port;

    @Option(names = "--shards", description = "Shards, fixed at first start (key shards; default: 4).")
    Integer shards;

    @Option(names = "--expected",
            description = "Documents a new collection is sized for; larger collections still work (key expected; default: 1000000).")
    Long expected;

    @Option(names = "--threads", description = "gRPC handler threads (key handler.threads; default: one per core; 0: gRPC's unbounded pool).")
    Integer threads;

    @Option(names = "--inline-reads", negatable = true, fallbackValue = "true",
            description = {"Handle small fingerprint queries (up to about 20 probes) on the network thread that read them,",
                    "without a hand-off to a handler thread; --no-inline-reads sends every call to the handler threads",
                    "(key inline.reads; default: on; never with --threads 0)."})
    Boolean inlineReads;

    @Option(names = "--durability", converter = DurabilityConverter.class,
            description = DurabilityConverter.CHOICES + " (default: process). Key: durability.")
    Durability durability;

    @Mixin
    MetricsOption metrics;

    @Mixin
    TlsOptions tls;

    @Mixin
    AuthFileOption auth;

    @Override
    public Integer call() throws Exception {
        EmbeddedSettings e = EmbeddedSettings.of(config.resolve(ConfigSchema.EMBEDDED, flags().list()));
        EmbeddedSimdex simdex = EmbeddedSimdex.start(e.data(), e.shards(), e.host(), e.port(), e.expected(), e.handlerThreads(),
                e.inlineReads(), java.time.Clock.systemUTC(), e.durability(), e.security());
        Runtime.getRuntime().addShutdownHook(new Thread(simdex::close, "simdex-shutdown"));
        if (e.metricsPort() >= 0) {
            MetricsOption.announce("simdex embedded", e.host(), simdex.serveMetrics(e.host(), e.metricsPort()));
        }
        System.err.printf("simdex embedded: %d shards, data in %s, durability %s, listening on %s:%d%n",
                simdex.index().shardCount(), e.data().toAbsolutePath(), e.durability().label(), e.host(), simdex.port());
        simdex.awaitTermination();
        return 0;
    }

    private ConfigOptions.Flags flags() {
        ConfigOptions.Flags f = new ConfigOptions.Flags().put("data", data, "--data").put("host", host, "--host").put("port", port, "--port")
                .put("shards", shards, "--shards").put("expected", expected, "--expected").put("handler.threads", threads, "--threads")
                .put("inline.reads", inlineReads, inlineReads == Boolean.FALSE ? "--no-inline-reads" : "--inline-reads")
                .put("durability", durability == null ? null : durability.label(), "--durability");
        metrics.addTo(f);
        tls.addTo(f);
        auth.addTo(f);
        return f;
    }
}
