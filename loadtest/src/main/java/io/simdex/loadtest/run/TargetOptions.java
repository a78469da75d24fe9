package io.simdex.loadtest.run;

import io.simdex.client.ClientOptions;
import io.simdex.client.cli.CredentialOptions;
import io.simdex.loadtest.DurationConverter;
import io.simdex.server.Durability;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.time.Duration;

/** Where to send load and over how many connections. */
public final class TargetOptions {
    @Option(names = "--target", defaultValue = "127.0.0.1:7411",
            description = {"echo: start the echo floor in this JVM; embedded: start simdex in this JVM;",
                    "or [LABEL=]HOST:PORT of a loopback address (default: ${DEFAULT-VALUE})."})
    public String target;

    @Option(names = "--data", defaultValue = "loadtest/target/embedded-data",
            description = "Data directory when --target embedded (default: ${DEFAULT-VALUE}).")
    public Path data;

    @Option(names = "--shards", defaultValue = "4", description = "Shards when --target embedded (default: ${DEFAULT-VALUE}).")
    public int shards;

    @Option(names = "--expected", defaultValue = "10000000",
            description = "Collection sizing when --target embedded, as `simdex embedded --expected` (default: ${DEFAULT-VALUE}).")
    public long expected;

    @Option(names = "--durability", defaultValue = "process",
            description = "When --target embedded acknowledges writes, as `simdex embedded --durability`: process or fsync (default: ${DEFAULT-VALUE}).")
    public String durability;

    @Option(names = "--connections", defaultValue = "1", description = "HTTP/2 connections, calls spread round-robin (default: ${DEFAULT-VALUE}).")
    public int connections;

    @Option(names = "--timeout", defaultValue = "30s", converter = DurationConverter.class,
            description = "Deadline of each call (default: ${DEFAULT-VALUE}).")
    public Duration timeout;

    /** --tls, --tls-ca, --tls-cert, --tls-key and --token, as the CLI's (SIMDEX_TLS_CA and SIMDEX_TOKEN too). */
    @Mixin
    public CredentialOptions credentials = new CredentialOptions();

    public Target open() {
        return open(target);
    }

    /** {@code spec} (echo, embedded or HOST:PORT) with these options' data directory and sizing. */
    public Target open(String spec) {
        if (connections < 1 || connections > 64) {
            throw new IllegalArgumentException("--connections must be 1..64, was " + connections);
        }
        ClientOptions reach = credentials.applyTo(ClientOptions.DEFAULTS);
        String address = spec.substring(spec.indexOf('=') + 1);
        if (reach.tls() != null && (address.equals("echo") || address.equals("embedded"))) {
            throw new IllegalArgumentException("TLS options need a HOST:PORT target; " + address + " is started here and serves plaintext");
        }
        return Target.open(spec, data, shards, expected, Durability.parse(durability)).with(reach);
    }
}
