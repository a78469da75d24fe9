/**
 * The {@code simdex} command line, built with picocli over {@link io.simdex.client.SimdexClient}.
 *
 * <p>{@link io.simdex.client.cli.SimdexCli} is the entry point; each subcommand is a small
 * {@code ...Command} class. Commands that talk to the server extend {@code ClientCommand},
 * which opens the client from the shared connection options ({@code --target},
 * {@code --deadline}, {@code --json}) and closes it afterwards; tests swap the way clients are
 * opened ({@code ClientFactory}) to run commands against an in-process server. The
 * {@code admin} subcommands do the same over {@link io.simdex.client.SimdexAdmin}
 * ({@code AdminClientCommand}, {@code AdminFactory}).
 *
 * <p>Output goes to picocli's out writer, human-readable unless {@code --json} is given;
 * fingerprints are printed as 16 lowercase hex digits in both forms. Exit codes: 0 success,
 * 1 bad input data (an unreadable file, a bad line), 2 usage error or gRPC error.
 */
package io.simdex.client.cli;
