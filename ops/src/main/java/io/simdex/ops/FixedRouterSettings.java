package io.simdex.ops;

import io.simdex.router.cluster.ClusterConfig;
import io.simdex.router.config.ConfigSchema;
import io.simdex.router.config.Setting;
import io.simdex.router.config.Settings;
import io.simdex.server.tls.PeerCredentials;
import io.simdex.server.tls.TlsFiles;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * The settings of a router in front of fixed shards ({@link ConfigSchema#FIXED_ROUTER}), parsed and checked.
 *
 * @param shards the shard addresses {@code host:port} in shard order, which fixes placement
 * @param handlerThreads 0 for gRPC's unbounded pool (the default: handlers wait on remote shards)
 * @param dedupLeaseMillis how long a Dedup's bucket locks last on the shards
 * @param metricsPort -1 when metrics are not served
 */
record FixedRouterSettings(List<String> shards, String host, int port, Path data, int handlerThreads, int dedupLeaseMillis, int metricsPort,
        Settings settings) {

    /** @throws IllegalArgumentException naming the origin of a bad value */
    static FixedRouterSettings of(Settings s) {
        s.required("shard.addresses");
        Setting addresses = s.get("shard.addresses");
        List<String> shards = Arrays.stream(addresses.value().split(",", -1)).map(String::trim).toList();
        if (shards.stream().anyMatch(a -> a.isEmpty() || a.indexOf(':') < 0)) {
            throw addresses.invalid("host:port addresses separated by commas");
        }
        return new FixedRouterSettings(shards, s.string("host"), s.port("port", 0), Path.of(s.required("data")),
                (int) s.number("handler.threads", 0, 100_000, 0), ClusterConfig.dedupLeaseMillis(s), s.port("metrics.port", -1), s);
    }

    /** How the router reaches its shards: mutual TLS with tls.cert and tls.key when tls.shard.ca is set, else plaintext. */
    PeerCredentials toShards() {
        Path ca = settings.path("tls.shard.ca");
        return ca == null ? PeerCredentials.PLAINTEXT
                : PeerCredentials.mutualTls(new TlsFiles(settings.path("tls.cert"), settings.path("tls.key"), ca));
    }
}
