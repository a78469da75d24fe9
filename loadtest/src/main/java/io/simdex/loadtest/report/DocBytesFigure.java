package io.simdex.loadtest.report;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Bytes per document of stores loaded to 1M, 10M and 50M documents: for each size, the server's
 * {@code stats} after the load ({@code stats-SIZE.txt}: its tables' and document maps' bytes) and
 * {@code du -sb} of its data directory ({@code disk-SIZE.txt}: every file). Targets 8a and 8b
 * judge all files per document at 1M and at 50M.
 */
final class DocBytesFigure implements Figure {
    /** The sizes measured, by the names of their files. */
    static final List<String> SIZES = List.of("1m", "10m", "50m");
    /** Target 8a: every file of a 1M-document store, per document. */
    static final double MAX_BYTES_AT_1M = 96;
    /** Target 8b: the same at 50M. */
    static final double MAX_BYTES_AT_50M = 64;

    @Override
    public String results(FigureDir dir) {
        List<List<String>> rows = new ArrayList<>();
        for (String size : SIZES) {
            double docs = documents(dir, size);
            rows.add(List.of("`stats-" + size + ".txt`, `disk-" + size + ".txt`", Md.count(docs),
                    Md.fixed(stat(dir, size, "table bytes") / docs, 1), Md.fixed(stat(dir, size, "doc bytes") / docs, 1),
                    "**" + Md.fixed(bytesPerDocument(dir, size), 1) + "**"));
        }
        return Md.table(List.of("files", "documents", "tables, B per document", "document maps, B per document",
                "all files on disk, B per document"), rows);
    }

    @Override
    public List<Target> targets(FigureDir dir) {
        double small = bytesPerDocument(dir, "1m");
        double big = bytesPerDocument(dir, "50m");
        return List.of(
                new Target("8a", "at most " + Md.count(MAX_BYTES_AT_1M) + " B per document at 1M (16-byte ids, every file)",
                        Md.fixed(small, 1) + " B", small <= MAX_BYTES_AT_1M, dir.name()),
                new Target("8b", "at most " + Md.count(MAX_BYTES_AT_50M) + " B per document at 50M (16-byte ids, every file)",
                        Md.fixed(big, 1) + " B", big <= MAX_BYTES_AT_50M, dir.name()));
    }

    private static double bytesPerDocument(FigureDir dir, String size) {
        return disk(dir, size) / documents(dir, size);
    }

    private static double documents(FigureDir dir, String size) {
        double docs = stat(dir, size, "documents");
        if (docs <= 0) {
            throw new IllegalArgumentException(dir.dir().resolve("stats-" + size + ".txt") + ": no documents");
        }
        return docs;
    }

    private static double stat(FigureDir dir, String size, String name) {
        return StatsText.number(dir.dir().resolve("stats-" + size + ".txt"), name);
    }

    /** The bytes {@code du -sb} gives: the first field of its one line. */
    private static double disk(FigureDir dir, String size) {
        Path file = dir.dir().resolve("disk-" + size + ".txt");
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
