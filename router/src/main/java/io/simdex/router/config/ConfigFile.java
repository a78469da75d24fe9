package io.simdex.router.config;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

/**
 * A config file: Java properties ({@code key=value}, {@code #} comments). Any key the process does
 * not read is an error naming its line: a typo such as {@code write_quorum} would otherwise fall
 * back to the default without a word.
 */
final class ConfigFile {
    private ConfigFile() {
    }

    /**
     * The file's settings, each with its line as origin ({@code node.properties line 4}).
     *
     * @throws IllegalArgumentException for a file that does not exist or a key the process does not read
     */
    static List<Setting> read(ConfigSchema schema, Path file) throws IOException {
        Properties p = new Properties();
        List<String> lines;
        try (Reader r = Files.newBufferedReader(file)) {
            p.load(r);
            lines = Files.readAllLines(file);
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException("config file " + file + " does not exist", e);
        }
        Map<String, Integer> lineOf = new HashMap<>();
        for (int i = 0; i < lines.size(); i++) {
            String key = keyOf(lines.get(i));
            if (key != null && p.containsKey(key)) {
                if (!schema.knows(key)) {
                    throw new IllegalArgumentException(file + " line " + (i + 1) + ": " + unknown(schema, key));
                }
                lineOf.put(key, i + 1); // the last one wins, as in Properties
            }
        }
        return of(schema, p, key -> lineOf.containsKey(key) ? file + " line " + lineOf.get(key) : file.toString());
    }

    /** Settings from properties already read, each with its origin; an unknown key is an error. */
    static List<Setting> of(ConfigSchema schema, Properties p, java.util.function.Function<String, String> origin) {
        List<Setting> settings = new ArrayList<>();
        for (String key : p.stringPropertyNames().stream().sorted().toList()) {
            if (!schema.knows(key)) {
                throw new IllegalArgumentException(origin.apply(key) + ": " + unknown(schema, key));
            }
            settings.add(new Setting(key, p.getProperty(key).trim(), origin.apply(key)));
        }
        return settings;
    }

    /** {@code unknown key 'write_quorum' (did you mean 'write.quorum'?); known keys: ...}. */
    static String unknown(ConfigSchema schema, String key) {
        String normal = key.toLowerCase(Locale.ROOT).replace('_', '.').replace('-', '.');
        String hint = schema.knows(normal) ? " (did you mean '" + normal + "'?)" : "";
        return "unknown key '" + key + "'" + hint + "; known keys: "
                + String.join(", ", schema.keys().stream().sorted().toList());
    }

    /** The key a properties line starts, or null for blank and comment lines. */
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
