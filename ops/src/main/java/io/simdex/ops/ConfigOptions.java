package io.simdex.ops;

import io.simdex.router.config.ConfigSchema;
import io.simdex.router.config.Setting;
import io.simdex.router.config.Settings;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code --config FILE} and {@code --set KEY=VALUE}, shared by the server processes: each resolves
 * its settings as flag &gt; environment ({@code SIMDEX_KEY}) &gt; file &gt; default (see {@link Settings}).
 */
final class ConfigOptions {
    @Option(names = "--config", paramLabel = "FILE",
            description = "Settings file (Java properties, see conf/); an unknown key is an error naming its line.")
    Path file;

    @Option(names = "--set", paramLabel = "KEY=VALUE",
            description = "Set any config key, over the file and the environment (SIMDEX_KEY, e.g. SIMDEX_WRITE_QUORUM for write.quorum).")
    Map<String, String> set = new LinkedHashMap<>();

    /** The settings from {@code flags} (the command's own flags that were given), --set, the environment, the file and the defaults. */
    Settings resolve(ConfigSchema schema, List<Setting> flags, Map<String, String> env) throws IOException {
        List<Setting> all = new ArrayList<>(flags);
        set.forEach((key, value) -> all.add(Setting.flag(key, value, "--set " + key)));
        return Settings.resolve(schema, file, env, all);
    }

    /** As {@link #resolve(ConfigSchema, List, Map)} with this process's environment, logging what has no effect here. */
    Settings resolve(ConfigSchema schema, List<Setting> flags) throws IOException {
        Settings s = resolve(schema, flags, System.getenv());
        s.warnings().forEach(w -> System.err.println("simdex: warning: " + w));
        return s;
    }

    /**
     * A router's keys: {@link ConfigSchema#FIXED_ROUTER}'s when shard.addresses is set ({@code shardFlag}: by --shard; or by
     * --set, {@code env} or the file), else {@link ConfigSchema#CLUSTER}'s.
     */
    ConfigSchema routerSchema(boolean shardFlag, Map<String, String> env) {
        boolean fixed = shardFlag || set.containsKey("shard.addresses") || Settings.sets("shard.addresses", file, env);
        return fixed ? ConfigSchema.FIXED_ROUTER : ConfigSchema.CLUSTER;
    }

    /** Collects the named flags a command was given as settings; a flag not given (null) is left out. */
    static final class Flags {
        private final List<Setting> list = new ArrayList<>();

        Flags put(String key, Object value, String flag) {
            if (value != null) {
                list.add(Setting.flag(key, value.toString(), flag));
            }
            return this;
        }

        List<Setting> list() {
            return list;
        }
    }
}
