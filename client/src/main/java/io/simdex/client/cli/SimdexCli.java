package io.simdex.client.cli;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.NoSuchFileException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.HelpCommand;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The {@code simdex} command line. Exit codes: 0 success; 1 bad input data (a bad line, an
 * unreadable file), printed as {@code error: message}; 2 a gRPC error, printed as
 * {@code error: STATUS_CODE: description}, or a usage error (picocli's usage code).
 */
// INHERIT: every subcommand gets -h/--help and -V/--version with this version provider.
@Command(name = "simdex", scope = ScopeType.INHERIT, mixinStandardHelpOptions = true,
        versionProvider = SimdexCli.Version.class,
        description = "Near-duplicate search over 64-bit SimHash fingerprints.",
        subcommands = {InsertCommand.class, QueryCommand.class, DedupCommand.class, DeleteCommand.class, LookupCommand.class, ExportCommand.class, UrlsCommand.class, HandlingTimesCommand.class, io.simdex.client.batch.DedupBatchCommand.class, LoadCommand.class,
                StatsCommand.class, CollectionsCommand.class, FingerprintCommand.class, AdminCommand.class, HelpCommand.class})
public final class SimdexCli implements Runnable {
    /** Exit code of a gRPC failure. */
    public static final int EXIT_RPC_ERROR = 2;
    /** Exit code of input data the command cannot use. */
    public static final int EXIT_BAD_INPUT = 1;

    @Spec
    CommandSpec spec;

    public static void main(String... args) {
        System.exit(run(args));
    }

    /** Runs one command line against the server it names; returns the exit code. */
    public static int run(String... args) {
        return run(ClientFactory.GRPC, new PrintWriter(System.out, true), new PrintWriter(System.err, true), args);
    }

    /** Runs with the given client factory and writers: the seam tests use. */
    static int run(ClientFactory clients, PrintWriter out, PrintWriter err, String... args) {
        return run(clients, AdminFactory.GRPC, out, err, args);
    }

    /** Runs with the given client and admin factories and writers. */
    static int run(ClientFactory clients, AdminFactory admins, PrintWriter out, PrintWriter err, String... args) {
        CommandLine cli = new CommandLine(new SimdexCli())
                .setOut(out)
                .setErr(err)
                .setCaseInsensitiveEnumValuesAllowed(true)
                .setExecutionExceptionHandler((e, line, parsed) -> handle(e, err));
        useClients(cli, clients, admins);
        try {
            return cli.execute(LeadingOptions.moveAfterCommand(cli, args));
        } finally {
            out.flush();
            err.flush();
        }
    }

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "Missing required subcommand");
    }

    private static void useClients(CommandLine cli, ClientFactory clients, AdminFactory admins) {
        if (cli.getCommand() instanceof ClientCommand command) {
            command.useClients(clients);
        }
        if (cli.getCommand() instanceof AdminClientCommand command) {
            command.useAdmins(admins);
        }
        cli.getSubcommands().values().forEach(sub -> useClients(sub, clients, admins));
    }

    private static int handle(Exception e, PrintWriter err) throws Exception {
        if (e instanceof StatusRuntimeException sre) {
            err.println("error: " + describe(sre.getStatus()));
            return EXIT_RPC_ERROR;
        }
        if (e instanceof NoSuchFileException missing) {
            err.println("error: no such file: " + missing.getFile());
            return EXIT_BAD_INPUT;
        }
        if (e instanceof BadInputException || e instanceof IOException) {
            err.println("error: " + e.getMessage());
            return EXIT_BAD_INPUT;
        }
        throw e;
    }

    private static String describe(Status status) {
        String description = status.getDescription();
        if (description == null && status.getCause() != null) {
            description = status.getCause().getMessage();
        }
        return status.getCode() + (description == null ? "" : ": " + description);
    }

    /** The version from the jar manifest, or "dev" when run from classes. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = SimdexCli.class.getPackage().getImplementationVersion();
            return new String[] {"simdex " + (v == null ? "dev" : v)};
        }
    }
}
