package io.simdex.client.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** What a {@code --file FILE} option names: one item per line ({@code -}: standard input). */
final class Lines {
    private Lines() {
    }

    /** The file's lines, stripped, blank ones left out. */
    static List<String> read(String file) throws IOException {
        BufferedReader in = file.equals("-")
                ? new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))
                : Files.newBufferedReader(Path.of(file));
        List<String> lines = new ArrayList<>();
        try (in) {
            for (String line; (line = in.readLine()) != null; ) {
                if (!line.isBlank()) {
                    lines.add(line.strip());
                }
            }
        }
        return lines;
    }
}
