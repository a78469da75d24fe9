package io.simdex.router.config;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * A process's effective settings: for each key of its {@link ConfigSchema}, the value that wins
 * by one precedence, the same for every process:
 * <pre>
 * flag  &gt;  environment (SIMDEX_KEY, see EnvNames)  &gt;  config file  &gt;  default
 * </pre>
 * Each value keeps its origin, so a bad value's message and {@code config check} say where it came from.
 */
public final class Settings {
    private final ConfigSchema schema;
    private final Map<String, Setting> values;
    private final List<String> warnings;

    private Settings(ConfigSchema schema, Map<String, Setting> values, List<String> warnings) {
        this.schema = schema;
        this.values = values;
        this.warnings = warnings;
    }

    /**
     * Resolves {@code schema}'s keys from {@code flags}, {@code env}, {@code file} (null: none) and the defaults.
     *
     * @throws IllegalArgumentException for an unknown key in the file (naming its line) or a flag, or a near miss of a
     *         key among the {@code SIMDEX_} variables
     */
    public static Settings resolve(ConfigSchema schema, Path file, Map<String, String> env, List<Setting> flags) throws IOException {
        Map<String, Setting> values = defaults(schema);
        if (file != null) {
            put(values, ConfigFile.read(schema, file));
        }
        List<String> warnings = EnvNames.check(schema, env);
        put(values, EnvNames.read(schema, env));
        for (Setting flag : flags) {
            if (!schema.knows(flag.key())) {
                throw new IllegalArgumentException(flag.origin() + ": " + ConfigFile.unknown(schema, flag.key()));
            }
        }
        put(values, flags);
        return new Settings(schema, values, List.copyOf(warnings));
    }

    /** Settings from properties already read ({@code source} as every value's origin) over the defaults. */
    public static Settings of(ConfigSchema schema, Properties p, String source) {
        Map<String, Setting> values = defaults(schema);
        put(values, ConfigFile.of(schema, p, key -> source));
        return new Settings(schema, values, List.of());
    }

    /**
     * Whether {@code key} is set in {@code env} or {@code file} (null: none), read before a process knows its schema:
     * a router's keys depend on whether {@code shard.addresses} is set. A file that cannot be read counts as not
     * setting it; {@link #resolve} then reports it.
     */
    public static boolean sets(String key, Path file, Map<String, String> env) {
        if (env.containsKey(EnvNames.of(key))) {
            return true;
        }
        if (file == null) {
            return false;
        }
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file)) {
            p.load(r);
        } catch (IOException | IllegalArgumentException unreadable) {
            return false;
        }
        return p.containsKey(key);
    }

    private static Map<String, Setting> defaults(ConfigSchema schema) {
        Map<String, Setting> values = new LinkedHashMap<>();
        schema.defaults().forEach((key, value) -> values.put(key, new Setting(key, value, Setting.DEFAULT)));
        return values;
    }

    private static void put(Map<String, Setting> values, Collection<Setting> layer) {
        layer.forEach(s -> values.put(s.key(), s));
    }

    public ConfigSchema schema() {
        return schema;
    }

    /** Every key, in the schema's order. */
    public Collection<Setting> all() {
        return values.values();
    }

    /** Things set that have no effect here (another process's {@code SIMDEX_} variables), to be logged. */
    public List<String> warnings() {
        return warnings;
    }

    public Setting get(String key) {
        Setting s = values.get(key);
        if (s == null) {
            throw new IllegalArgumentException("no key '" + key + "' for " + schema.process()); // a bug: keys are constants
        }
        return s;
    }

    /** The value, "" when unset. */
    public String string(String key) {
        return get(key).value();
    }

    /** A required value. */
    public String required(String key) {
        Setting s = get(key);
        if (!s.isSet()) {
            throw new IllegalArgumentException("'" + key + "' is required (in the config file, " + EnvNames.of(key) + " or a flag)");
        }
        return s.value();
    }

    /** The value as a long in {@code min..max}; {@code unset} when unset. */
    public long number(String key, long min, long max, long unset) {
        Setting s = get(key);
        if (!s.isSet()) {
            return unset;
        }
        try {
            long v = Long.parseLong(s.value());
            if (v >= min && v <= max) {
                return v;
            }
        } catch (NumberFormatException notANumber) {
            // reported below
        }
        throw s.invalid(min + ".." + max);
    }

    /** A port, 0..65535; {@code unset} when unset. */
    public int port(String key, int unset) {
        return (int) number(key, 0, 65535, unset);
    }

    /** {@code true} or {@code false}, nothing else. */
    public boolean bool(String key) {
        Setting s = get(key);
        return switch (s.value()) {
            case "true" -> true;
            case "false", "" -> false;
            default -> throw s.invalid("true or false");
        };
    }

    /** A path, null when unset. */
    public Path path(String key) {
        String v = string(key);
        return v.isEmpty() ? null : Path.of(v);
    }
}
