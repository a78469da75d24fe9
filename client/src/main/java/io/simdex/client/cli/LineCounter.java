package io.simdex.client.cli;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Counts lines quickly, by scanning bytes for '\n', to give the progress bar a total. */
public final class LineCounter {
    private static final int BUFFER_BYTES = 1 << 16;

    private LineCounter() {
    }

    /**
     * Lines in all {@code files} (a last line without '\n' counts), or -1 when a file is not a
     * regular file (a pipe cannot be read twice).
     */
    public static long count(List<Path> files) throws IOException {
        long total = 0;
        for (Path file : files) {
            if (!Files.isRegularFile(file)) {
                return -1;
            }
            total += count(file);
        }
        return total;
    }

    private static long count(Path file) throws IOException {
        byte[] buf = new byte[BUFFER_BYTES];
        long lines = 0;
        byte last = '\n';
        try (InputStream in = Files.newInputStream(file)) {
            for (int n = in.read(buf); n > 0; n = in.read(buf)) {
                for (int i = 0; i < n; i++) {
                    if (buf[i] == '\n') {
                        lines++;
                    }
                }
                last = buf[n - 1];
            }
        }
        return last == '\n' ? lines : lines + 1;
    }
}
