package io.simdex.ops;

import io.simdex.router.config.ConfigSchema;
import io.simdex.router.config.Settings;
import io.simdex.server.Durability;

import java.nio.file.Path;

/**
 * A shard process's settings ({@link ConfigSchema#SHARD}), parsed and checked.
 *
 * @param metricsPort -1 when metrics are not served
 */
record ShardSettings(Path data, String host, int port, int shards, long expected, Durability durability, int metricsPort) {

    /** @throws IllegalArgumentException naming the origin of a bad value, or a required key that is unset */
    static ShardSettings of(Settings s) {
        Path data = Path.of(s.required("data"));
        s.required("port");
        return new ShardSettings(data, s.string("host"), s.port("port", 0), (int) s.number("shards", 1, 4096, 0),
                s.number("expected", 1, Long.MAX_VALUE, 0), s.get("durability").parse(Durability::parse), s.port("metrics.port", -1));
    }
}
