package io.simdex.router.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Environment overrides. Key {@code write.quorum} is variable {@code SIMDEX_WRITE_QUORUM}: the
 * prefix {@code SIMDEX_}, then the key in upper case with dots as underscores (no key holds an
 * underscore, so the mapping is one to one).
 *
 * <p>The {@code SIMDEX_} prefix is shared: the launcher reads {@code SIMDEX_HEAP} and
 * {@code SIMDEX_JAVA_OPTS}, the client CLI {@code SIMDEX_TARGET}, {@code SIMDEX_TOKEN} and
 * {@code SIMDEX_TLS_CA}, and an operator's shell may hold them when it starts a server. So a variable
 * that names no key is ignored, with two exceptions:
 * <ul>
 * <li>a near miss of a key this process reads ({@code SIMDEX_WRITE_QOURUM}, {@code SIMDEX_WRITEQUORUM}:
 *     edit distance at most 2, a swap of neighbours counting as one, 1 for keys of up to 4 letters) is an error, like an unknown key in a
 *     file: it is a typo whose setting would silently fall back to the default;</li>
 * <li>a key another kind of process reads ({@code SIMDEX_SEEDS} for the embedded default) is a
 *     warning: environments are often shared by the processes of one host, so it is not an error,
 *     but the operator learns it has no effect here.</li>
 * </ul>
 */
public final class EnvNames {
    static final String PREFIX = "SIMDEX_";

    /** Variables other programs of the distribution read; never reported. */
    static final Set<String> OTHERS = Set.of("SIMDEX_HEAP", "SIMDEX_JAVA_OPTS", "SIMDEX_TARGET", "SIMDEX_TOKEN", "SIMDEX_TLS_CA",
            "SIMDEX_CLUSTER_DIR", "SIMDEX_LOADTEST_JAR");

    private EnvNames() {
    }

    /** The variable that overrides {@code key}: {@code write.quorum} is {@code SIMDEX_WRITE_QUORUM}. */
    public static String of(String key) {
        return PREFIX + key.toUpperCase(Locale.ROOT).replace('.', '_');
    }

    /** The overrides {@code env} holds for {@code schema}'s keys, each with its variable as origin. */
    static List<Setting> read(ConfigSchema schema, Map<String, String> env) {
        List<Setting> settings = new ArrayList<>();
        for (String key : schema.keys()) {
            String value = env.get(of(key));
            if (value != null) {
                settings.add(new Setting(key, value.trim(), "environment " + of(key)));
            }
        }
        return settings;
    }

    /**
     * Warnings for {@code SIMDEX_} variables that are another process's keys.
     *
     * @throws IllegalArgumentException for the first near miss of one of {@code schema}'s keys, naming it and the key meant
     */
    static List<String> check(ConfigSchema schema, Map<String, String> env) {
        List<String> warnings = new ArrayList<>();
        for (String name : env.keySet().stream().sorted().toList()) {
            if (!name.startsWith(PREFIX) || OTHERS.contains(name)) {
                continue;
            }
            String key = name.substring(PREFIX.length()).toLowerCase(Locale.ROOT).replace('_', '.');
            if (schema.knows(key)) {
                continue;
            }
            if (ConfigSchema.anyKnows(key)) {
                warnings.add("environment " + name + ": ignored, " + schema.process() + " does not read " + key);
                continue;
            }
            for (String known : schema.keys()) {
                if (distance(key.replace(".", ""), known.replace(".", "")) <= (known.length() <= 4 ? 1 : 2)) {
                    throw new IllegalArgumentException("environment " + name + ": names no key of " + schema.process()
                            + "; did you mean " + of(known) + " (" + known + ")?");
                }
            }
        }
        return warnings;
    }

    /** Edit distance counting a swap of two neighbours as one edit ({@code PROT} is one from {@code PORT}); names are short. */
    static int distance(String a, String b) {
        int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++) {
            for (int j = 0; j <= b.length(); j++) {
                if (i == 0 || j == 0) {
                    d[i][j] = i + j;
                    continue;
                }
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                d[i][j] = Math.min(d[i - 1][j - 1] + cost, Math.min(d[i - 1][j], d[i][j - 1]) + 1);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
                }
            }
        }
        return d[a.length()][b.length()];
    }
}
