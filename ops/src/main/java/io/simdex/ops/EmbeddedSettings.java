package io.simdex.ops;

import io.simdex.router.config.ConfigSchema;
import io.simdex.router.config.Settings;
import io.simdex.router.security.ServerSecurity;
import io.simdex.router.transport.HandlerThreads;
import io.simdex.server.Durability;

import java.nio.file.Path;

/**
 * The embedded default's settings ({@link ConfigSchema#EMBEDDED}), parsed and checked.
 *
 * @param handlerThreads one per core when unset, 0 for gRPC's unbounded pool
 * @param metricsPort -1 when metrics are not served
 */
record EmbeddedSettings(Path data, String host, int port, int shards, long expected, int handlerThreads, boolean inlineReads,
        Durability durability, int metricsPort, Settings settings) {

    /** @throws IllegalArgumentException naming the origin of a bad value */
    static EmbeddedSettings of(Settings s) {
        int handlers = s.get("handler.threads").isSet() ? (int) s.number("handler.threads", 0, 100_000, 0) : HandlerThreads.perCore();
        return new EmbeddedSettings(Path.of(s.required("data")), s.string("host"), s.port("port", 0), (int) s.number("shards", 1, 4096, 0),
                s.number("expected", 1, Long.MAX_VALUE, 0), handlers, s.bool("inline.reads"), s.get("durability").parse(Durability::parse),
                s.port("metrics.port", -1), s);
    }

    /** The public port's protection; reads the TLS and token files now. */
    ServerSecurity security() {
        return TlsOptions.security(settings);
    }
}
