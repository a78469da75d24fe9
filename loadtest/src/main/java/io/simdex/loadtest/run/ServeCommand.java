package io.simdex.loadtest.run;

import io.simdex.loadtest.echo.EchoService;
import io.simdex.router.EmbeddedSimdex;
import io.simdex.router.transport.HandlerThreads;
import io.simdex.router.transport.PublicServer;
import io.simdex.server.Durability;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/** {@code serve}: the echo floor or an embedded simdex in its own process, on 127.0.0.1. */
@Command(name = "serve", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Serve the echo floor or the embedded simdex on 127.0.0.1 until killed.",
                "Lets the load generator run in a separate JVM (`simdex embedded` from ops/ is the same server)."})
public final class ServeCommand implements Callable<Integer> {
    /** What to serve. */
    enum Kind { echo, embedded }

    @Option(names = "--kind", defaultValue = "embedded", description = "echo or embedded (default: ${DEFAULT-VALUE}).")
    Kind kind;

    @Option(names = "--port", defaultValue = "7411", description = "Port on 127.0.0.1; 0 picks one (default: ${DEFAULT-VALUE}).")
    int port;

    @Option(names = "--data", defaultValue = "loadtest/target/embedded-data", description = "Data directory for embedded (default: ${DEFAULT-VALUE}).")
    Path data;

    @Option(names = "--shards", defaultValue = "4", description = "Shards for embedded (default: ${DEFAULT-VALUE}).")
    int shards;

    @Option(names = "--expected", defaultValue = "10000000", description = "Collection sizing for embedded (default: ${DEFAULT-VALUE}).")
    long expected;

    @Option(names = "--threads", description = "gRPC handler threads, for both kinds (default: one per core; 0: gRPC's unbounded pool).")
    Integer threads;

    @Option(names = "--inline-reads", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = {"Both kinds: small fingerprint queries on the network thread that read them, not a handler",
                    "thread (default: on; --no-inline-reads: every call on the handler threads)."})
    boolean inlineReads;

    @Option(names = "--durability", defaultValue = "process",
            description = "Embedded: when writes are acknowledged, process or fsync, as `simdex embedded --durability` (default: ${DEFAULT-VALUE}).")
    String durability;

    @Override
    public Integer call() throws InterruptedException {
        AutoCloseable server;
        int bound;
        int handlers = HandlerThreads.orPerCore(threads);
        if (kind == Kind.echo) {
            PublicServer echo = EchoService.serve(port, handlers, inlineReads);
            server = echo;
            bound = echo.port();
        } else {
            EmbeddedSimdex simdex = EmbeddedSimdex.start(data, shards, "127.0.0.1", port, expected, handlers, inlineReads,
                    java.time.Clock.systemUTC(), Durability.parse(durability));
            server = simdex;
            bound = simdex.port();
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                server.close();
            } catch (Exception e) {
                System.err.println("serve: close failed: " + e);
            }
            stopped.countDown();
        }, "serve-shutdown"));
        System.err.printf("serve: %s listening on 127.0.0.1:%d%n", kind, bound);
        stopped.await();
        return 0;
    }
}
