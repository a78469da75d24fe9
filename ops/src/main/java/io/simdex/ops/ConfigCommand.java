package io.simdex.ops;

import io.simdex.router.cluster.ClusterConfig;
import io.simdex.router.config.ConfigSchema;
import io.simdex.router.config.Setting;
import io.simdex.router.config.Settings;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

/** {@code simdex config check FILE}: reads a process's config file as it would, and says what is wrong or what it would run with. */
@Command(name = "config", mixinStandardHelpOptions = true, description = "Config files of the server processes.",
        subcommands = ConfigCommand.Check.class)
final class ConfigCommand {
    @Command(name = "check", mixinStandardHelpOptions = true,
            description = {"Read FILE as `PROCESS --config FILE` would here, with this environment's SIMDEX_* variables and any --set:",
                    "exit 0, a summary and every key's effective value with where it came from (flag, environment, file line,"
                            + " default), or exit 2 and the first error (an unknown key names its line)."})
    static final class Check implements Callable<Integer> {
        @Option(names = "--for", paramLabel = "PROCESS", defaultValue = "node",
                description = "embedded, node or router (node and router read the same keys; default: ${DEFAULT-VALUE}).")
        String process;

        @Option(names = "--set", paramLabel = "KEY=VALUE", description = "As the process's --set.")
        java.util.Map<String, String> set = new java.util.LinkedHashMap<>();

        @Parameters(paramLabel = "FILE")
        Path file;

        @Override
        public Integer call() throws Exception {
            ConfigOptions options = new ConfigOptions();
            options.file = file;
            options.set = set;
            ConfigSchema schema = switch (process) {
                case "embedded" -> ConfigSchema.EMBEDDED;
                case "node", "router" -> ConfigSchema.CLUSTER;
                default -> throw new IllegalArgumentException("--for must be embedded, node or router, was \"" + process + "\"");
            };
            Settings s = options.resolve(schema, List.of());
            System.out.println(file + ": ok: " + summary(s));
            int width = s.all().stream().mapToInt(x -> x.key().length()).max().orElse(0);
            int valueWidth = s.all().stream().mapToInt(x -> shown(x).length()).max().orElse(0);
            for (Setting x : s.all()) {
                System.out.printf("  %-" + width + "s  %-" + valueWidth + "s  %s%n", x.key(), shown(x), x.origin());
            }
            return 0;
        }

        private static String shown(Setting s) {
            return s.isSet() ? s.value() : "(unset)";
        }

        private static String summary(Settings s) {
            if (s.schema() == ConfigSchema.EMBEDDED) {
                EmbeddedSettings e = EmbeddedSettings.of(s);
                return String.format("embedded, %s:%d, data %s, %d shards, durability %s, tls %s", e.host(), e.port(), e.data(), e.shards(),
                        e.durability().label(), s.path("tls.cert") != null ? "on" : "off");
            }
            ClusterConfig c = ClusterConfig.of(s);
            return String.format("id %s, %s, atomix port %d, data %s, %d seeds, R=%d W=%d, durability %s, tls %s", c.id(), c.address(),
                    c.atomixPort(), c.data(), c.seeds().size(), c.replication(), c.writeQuorum(), c.durability().label(),
                    c.security().tlsCert() != null ? (c.security().mutualTls() ? "mutual" : "on") : "off");
        }
    }
}
