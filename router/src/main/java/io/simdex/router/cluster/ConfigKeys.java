package io.simdex.router.cluster;

import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.Set;

/**
 * The keys a node's or router's config file may hold. Any other key is an error naming its line:
 * a typo such as {@code write_quorum} would otherwise fall back to the default without a word.
 */
final class ConfigKeys {
    static final Set<String> KNOWN = Set.of(
            "id", "host", "port", "atomix.port", "data", "seeds", "raft", "replication", "write.quorum", "expected",
            "hedge.millis", "handler.threads", "clock.skew.millis", "durability", "metrics.port",
            "tls.cert", "tls.key", "tls.cluster.ca", "tls.client.ca", "auth.file", "insecure");

    private ConfigKeys() {
    }

    /**
     * Throws IllegalArgumentException for the first unknown key, in file order when {@code lines}
     * are the file's lines (empty when there is no file), e.g. {@code node.properties line 7:
     * unknown key 'write_quorum' (did you mean 'write.quorum'?)}.
     */
    static void check(Properties p, List<String> lines, String source) {
        for (int i = 0; i < lines.size(); i++) {
            String key = keyOf(lines.get(i));
            if (key != null && !KNOWN.contains(key) && p.containsKey(key)) {
                throw new IllegalArgumentException(source + " line " + (i + 1) + ": " + unknown(key));
            }
        }
        for (String key : p.stringPropertyNames()) {
            if (!KNOWN.contains(key)) {
                throw new IllegalArgumentException(source + ": " + unknown(key));
            }
        }
    }

    private static String unknown(String key) {
        String normal = key.toLowerCase(Locale.ROOT).replace('_', '.').replace('-', '.');
        String hint = KNOWN.contains(normal) ? " (did you mean '" + normal + "'?)" : "";
        return "unknown key '" + key + "'" + hint + "; known keys: " + String.join(", ", KNOWN.stream().sorted().toList());
    }

    /** The key a properties line starts, or null for blank, comment and continued lines' tails. */
    private static String keyOf(String line) {
        String s = line.stripLeading();
        if (s.isEmpty() || s.charAt(0) == '#' || s.charAt(0) == '!') {
            return null;
        }
        int end = 0;
        while (end < s.length() && "=: \t\f".indexOf(s.charAt(end)) < 0) {
            end++;
        }
        return s.substring(0, end);
    }
}
