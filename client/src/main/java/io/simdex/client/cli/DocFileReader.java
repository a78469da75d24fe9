package io.simdex.client.cli;

import io.simdex.client.Doc;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Consumer;

/**
 * Reads documents from UTF-8 files line by line and hands each to a sink, so a file of any
 * size is never held in memory. Blank lines are skipped. A bad line either stops the read with
 * {@link BadInputException} naming {@code file:line}, or, when skipping, is reported on the
 * error writer and counted.
 */
final class DocFileReader {
    private final Consumer<Doc> sink;
    private final Runnable onLine;
    private final boolean skipBad;
    private final PrintWriter err;
    private long skipped;

    /**
     * @param sink    receives each document in file order
     * @param onLine  runs once per line read, blank and bad lines included (progress)
     * @param skipBad report and skip bad lines instead of stopping
     * @param err     where skipped lines are reported
     */
    DocFileReader(Consumer<Doc> sink, Runnable onLine, boolean skipBad, PrintWriter err) {
        this.sink = sink;
        this.onLine = onLine;
        this.skipBad = skipBad;
        this.err = err;
    }

    void read(Path file, InputFormat format) throws IOException, BadInputException {
        long lineNo = 0;
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                lineNo++;
                onLine.run();
                if (!line.isBlank()) {
                    parseAndSend(file, lineNo, line, format);
                }
            }
        } catch (CharacterCodingException e) {
            // The reader decodes ahead of the line being parsed, so the line number is approximate.
            throw new BadInputException(file + ": not valid UTF-8 near line " + (lineNo + 1));
        }
    }

    /** Lines skipped as bad so far. */
    long skipped() {
        return skipped;
    }

    private void parseAndSend(Path file, long lineNo, String line, InputFormat format) throws BadInputException {
        Doc doc;
        try {
            doc = format.parse(line);
        } catch (IllegalArgumentException e) {
            String where = file + ":" + lineNo + ": " + e.getMessage();
            if (!skipBad) {
                throw new BadInputException(where);
            }
            skipped++;
            err.println("skipped " + where);
            return;
        }
        sink.accept(doc);
    }
}
