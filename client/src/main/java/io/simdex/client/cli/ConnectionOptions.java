package io.simdex.client.cli;

import io.simdex.client.ClientOptions;
import java.time.Duration;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** Options every server-facing command shares: where to connect, how long to wait, how to print. */
final class ConnectionOptions {
    @Spec(Spec.Target.MIXEE)
    CommandSpec mixee;

    @Option(names = "--target", paramLabel = "HOST:PORT", defaultValue = "localhost:7411",
            description = "Server or router address (default: ${DEFAULT-VALUE}).")
    String target;

    @Option(names = "--deadline", paramLabel = "SECONDS",
            description = "Deadline of each call (default: 30), or of the whole stream for load, admin add and admin drain (default: 3600).")
    Double deadlineSeconds;

    @Option(names = "--json", description = "Print machine-readable JSON instead of text.")
    boolean json;

    @Mixin
    CredentialOptions credentials;

    /** The client options these flags select; a non-positive deadline or half a client certificate is a usage error. */
    ClientOptions clientOptions() {
        try {
            return credentials.applyTo(deadlineOptions());
        } catch (IllegalArgumentException e) {
            throw new ParameterException(mixee.commandLine(), e.getMessage());
        }
    }

    private ClientOptions deadlineOptions() {
        if (deadlineSeconds == null) {
            return ClientOptions.DEFAULTS;
        }
        if (!(deadlineSeconds > 0) || deadlineSeconds.isInfinite()) {
            throw new ParameterException(mixee.commandLine(),
                    "--deadline must be a positive number of seconds, was " + deadlineSeconds);
        }
        Duration deadline = Duration.ofNanos(Math.round(deadlineSeconds * 1e9));
        return ClientOptions.DEFAULTS.withDeadline(deadline).withBulkLoadDeadline(deadline);
    }
}
