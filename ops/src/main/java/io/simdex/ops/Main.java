package io.simdex.ops;

import io.simdex.client.cli.SimdexCli;
import picocli.CommandLine;

import java.util.Set;

/**
 * The one entry point of {@code simdex.jar}: server commands ({@code embedded}, {@code shard},
 * {@code router}, {@code node}) run here; every other command is the client CLI.
 */
public final class Main {
    private static final Set<String> SERVER_COMMANDS = Set.of("embedded", "shard", "router", "node");

    private Main() {
    }

    public static void main(String[] args) {
        // Before any Chronicle class loads: our users' data centres must see no analytics traffic.
        System.setProperty("chronicle.analytics.disable", "true");
        Logging.configure(args.length > 0 ? args[0] : "");
        System.exit(run(args));
    }

    static int run(String... args) {
        if (args.length > 0 && SERVER_COMMANDS.contains(args[0])) {
            return new CommandLine(new ServerCommands()).execute(args);
        }
        return SimdexCli.run(args);
    }

    @CommandLine.Command(name = "simdex", mixinStandardHelpOptions = true,
            subcommands = {EmbeddedCommand.class, ShardCommand.class, RouterCommand.class, NodeCommand.class},
            description = "simdex server commands; client commands: simdex --help is the client CLI's")
    static final class ServerCommands {
    }
}
