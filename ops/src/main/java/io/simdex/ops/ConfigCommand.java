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
                description = {"embedded, node, router or shard (default: ${DEFAULT-VALUE}). Node and cluster router read the same keys;",
                        "a router with shard.addresses set (in FILE, the environment or --set) reads those of `router --shard`."})
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
                case "node" -> ConfigSchema.CLUSTER;
                case "router" -> options.routerSchema(false, System.getenv());
                case "shard" -> ConfigSchema.SHARD;
                default -> throw new IllegalArgumentException("--for must be embedded, node, router or shard, was \"" + process + "\"");
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

        private static String tls(Settings s) {
            return s.path("tls.cert") != null ? "on" : "off";
        }

        private static String summary(Settings s) {
            if (s.schema() == ConfigSchema.EMBEDDED) {
                EmbeddedSettings e = EmbeddedSettings.of(s);
                return String.format("embedded, %s:%d, data %s, %d shards, durability %s, tls %s", e.host(), e.port(), e.data(), e.shards(),
                        e.durability().label(), tls(s));
            }
            if (s.schema() == ConfigSchema.SHARD) {
                ShardSettings h = ShardSettings.of(s);
                return String.format("shard, %s:%d, data %s, sized for %d shards, durability %s, tls %s", h.host(), h.port(), h.data(),
                        h.shards(), h.durability().label(), tls(s));
            }
            if (s.schema() == ConfigSchema.FIXED_ROUTER) {
                FixedRouterSettings r = FixedRouterSettings.of(s);
                return String.format("router, %s:%d, data %s, %d shards %s, tls %s, to shards %s", r.host(), r.port(), r.data(),
                        r.shards().size(), r.shards(), tls(s), s.path("tls.shard.ca") != null ? "mutual tls" : "plaintext");
            }
            ClusterConfig c = ClusterConfig.of(s);
            return String.format("id %s, %s, atomix port %d, data %s, %d seeds, R=%d W=%d, durability %s, tls %s", c.id(), c.address(),
                    c.atomixPort(), c.data(), c.seeds().size(), c.replication(), c.writeQuorum(), c.durability().label(),
                    c.security().tlsCert() != null ? (c.security().mutualTls() ? "mutual" : "on") : "off");
        }
    }
}
