package io.simdex.loadtest.report;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** The text {@code simdex stats} prints: one "name: value" line per field. */
final class StatsText {
    private StatsText() {
    }

    /** The value of the line {@code name} in {@code file}, a number. */
    static double number(Path file, String name) {
        try {
            for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                int colon = line.indexOf(':');
                if (colon > 0 && line.substring(0, colon).strip().equals(name)) {
                    return Double.parseDouble(line.substring(colon + 1).strip());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(file + ": '" + name + "' is not a number", e);
        }
        throw new IllegalArgumentException(file + ": no line '" + name + ":'");
    }
}
