package io.simdex.ops;

import io.simdex.router.metrics.MetricsEndpoint;
import picocli.CommandLine.Option;

/** {@code --metrics-port PORT}, shared by the server commands: Prometheus metrics, off unless given. */
final class MetricsOption {
    @Option(names = "--metrics-port", paramLabel = "PORT",
            description = "Serve Prometheus metrics at http://HOST:PORT/metrics, HOST as --host (0: a free port; default: none).")
    Integer port;

    /** The flag, if given, as setting metrics.port. */
    void addTo(ConfigOptions.Flags flags) {
        flags.put("metrics.port", port, "--metrics-port");
    }

    /** The endpoint on {@code host} at {@code port}, or null when {@code port} is -1 (metrics.port unset). */
    static MetricsEndpoint start(String host, int port) {
        return port >= 0 ? MetricsEndpoint.start(host, port) : null;
    }

    /** Logs where metrics are served, before the process logs that it listens (which scripts wait for). */
    static void announce(String process, String host, MetricsEndpoint endpoint) {
        if (endpoint != null) {
            System.err.printf("%s: metrics at http://%s:%d/metrics%n", process, host, endpoint.port());
        }
    }
}
