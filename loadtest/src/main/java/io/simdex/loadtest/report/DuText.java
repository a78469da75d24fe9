package io.simdex.loadtest.report;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** The line {@code du -sb DIR} prints: bytes, then the directory. */
final class DuText {
    private DuText() {
    }

    /** The bytes of the one line in {@code file}. */
    static double bytes(Path file) {
        try {
            String line = Files.readString(file, StandardCharsets.UTF_8).strip();
            return Double.parseDouble(line.split("\\s+", 2)[0]);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(file + ": not the output of du -sb", e);
        }
    }
}
