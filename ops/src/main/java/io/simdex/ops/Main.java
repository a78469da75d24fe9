package io.simdex.ops;

import io.simdex.client.cli.SimdexCli;
import io.simdex.server.DataDirInUseException;
import picocli.CommandLine;

import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.util.Set;

/**
 * The one entry point of {@code simdex.jar}: server commands ({@code embedded}, {@code shard},
 * {@code router}, {@code node}) run here; every other command is the client CLI.
 */
public final class Main {
    private static final Set<String> SERVER_COMMANDS = Set.of("embedded", "shard", "router", "node", "config", "backup");

    private Main() {
    }

    public static void main(String[] args) {
        // Before any Chronicle class loads: our users' data centres must see no analytics traffic,
        // and their logs no vendor banner (Chronicle's start-up lines ask for an e-mail address).
        System.setProperty("chronicle.analytics.disable", "true");
        System.setProperty("chronicle.announcer.disable", "true");
        Logging.configure(args.length > 0 ? args[0] : "");
        System.exit(run(args));
    }

    static int run(String... args) {
        if (args.length > 0 && SERVER_COMMANDS.contains(args[0])) {
            return new CommandLine(new ServerCommands()).setExecutionExceptionHandler(Main::startupError).execute(args);
        }
        int code = SimdexCli.run(args);
        if (args.length == 0 || (args.length == 1 && Set.of("-h", "--help", "help").contains(args[0]))) {
            // The client CLI's usage lists its own commands only; the server's are run here.
            PrintStream to = args.length == 0 ? System.err : System.out;
            to.print("Server commands (simdex COMMAND --help):" + System.lineSeparator()
                    + new CommandLine(new ServerCommands()).getHelp().commandList());
            to.flush();
        }
        return code;
    }

    /**
     * A setting that cannot work (a malformed auth file line, a missing certificate, plaintext
     * beyond loopback, a data directory another process holds) ends the start with its message
     * alone, exit code 2; anything else with its stack trace.
     */
    private static int startupError(Exception e, CommandLine cmd, CommandLine.ParseResult parsed) throws Exception {
        if (e instanceof IllegalArgumentException || e instanceof UncheckedIOException || e instanceof DataDirInUseException) {
            String message = e.getMessage();
            // An I/O failure's own words ("No space left on device") after what could not be done.
            String cause = e instanceof UncheckedIOException && e.getCause() != null ? e.getCause().getMessage() : null;
            if (cause != null && !message.contains(cause)) {
                message += ": " + cause;
            }
            cmd.getErr().println("simdex " + cmd.getCommandName() + ": " + message);
            return 2;
        }
        throw e;
    }

    @CommandLine.Command(name = "simdex", mixinStandardHelpOptions = true,
            subcommands = {EmbeddedCommand.class, ShardCommand.class, RouterCommand.class, NodeCommand.class, ConfigCommand.class,
                    BackupCommand.class},
            description = "simdex server commands; client commands: simdex --help is the client CLI's")
    static final class ServerCommands {
    }
}
