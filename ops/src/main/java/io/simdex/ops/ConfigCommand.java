package io.simdex.ops;

import io.simdex.router.cluster.ClusterConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

import java.nio.file.Path;
import java.util.concurrent.Callable;

/** {@code simdex config check FILE}: reads a node's or router's config file as they would, and says what is wrong. */
@Command(name = "config", mixinStandardHelpOptions = true, description = "Node and router config files.",
        subcommands = ConfigCommand.Check.class)
final class ConfigCommand {
    @Command(name = "check", mixinStandardHelpOptions = true,
            description = "Read FILE as `node --config` and `router --config` do: exit 0 and a summary, or exit 2 and the first error"
                    + " (an unknown key names its line).")
    static final class Check implements Callable<Integer> {
        @Parameters(paramLabel = "FILE")
        Path file;

        @Override
        public Integer call() throws Exception {
            ClusterConfig c = ClusterConfig.load(file);
            System.out.printf("%s: ok: id %s, %s, atomix port %d, data %s, %d seeds, R=%d W=%d, durability %s, tls %s%n",
                    file, c.id(), c.address(), c.atomixPort(), c.data(), c.seeds().size(), c.replication(), c.writeQuorum(),
                    c.durability().label(), c.security().tlsCert() != null ? (c.security().mutualTls() ? "mutual" : "on") : "off");
            return 0;
        }
    }
}
