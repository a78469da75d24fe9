package io.simdex.loadtest.report;

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
    private static final List<String> SIZES = List.of("1m", "10m", "50m");
    /** Target 8a: every file of a 1M-document store, per document. */
    static final double MAX_BYTES_AT_1M = 96;
    /** Target 8b: the same at 50M. */
    static final double MAX_BYTES_AT_50M = 64;

    @Override
    public String results(FigureDir dir) {
        List<List<String>> rows = new ArrayList<>();
        for (String size : SIZES) {
            Store s = Store.read(dir, size);
            rows.add(List.of("`stats-" + size + ".txt`, `disk-" + size + ".txt`", Md.count(s.documents()),
                    Md.fixed(s.tableBytes() / s.documents(), 1), Md.fixed(s.docBytes() / s.documents(), 1),
                    "**" + Md.fixed(s.diskPerDocument(), 1) + "**"));
        }
        return Md.table(List.of("files", "documents", "tables, B per document", "document maps, B per document",
                "all files on disk, B per document"), rows);
    }

    @Override
    public List<Target> targets(FigureDir dir) {
        double small = Store.read(dir, "1m").diskPerDocument();
        double big = Store.read(dir, "50m").diskPerDocument();
        return List.of(
                new Target("8a", "at most " + Md.count(MAX_BYTES_AT_1M) + " B per document at 1M (16-byte ids, every file)",
                        Md.fixed(small, 1) + " B", small <= MAX_BYTES_AT_1M, dir.name()),
                new Target("8b", "at most " + Md.count(MAX_BYTES_AT_50M) + " B per document at 50M (16-byte ids, every file)",
                        Md.fixed(big, 1) + " B", big <= MAX_BYTES_AT_50M, dir.name()));
    }

    /** One size's files: the server's counts ({@code stats-SIZE.txt}) and its directory's bytes ({@code disk-SIZE.txt}). */
    private record Store(double documents, double tableBytes, double docBytes, double diskBytes) {
        static Store read(FigureDir dir, String size) {
            Path stats = dir.dir().resolve("stats-" + size + ".txt");
            double documents = StatsText.number(stats, "documents");
            if (documents <= 0) {
                throw new IllegalArgumentException(stats + ": no documents");
            }
            return new Store(documents, StatsText.number(stats, "table bytes"), StatsText.number(stats, "doc bytes"),
                    DuText.bytes(dir.dir().resolve("disk-" + size + ".txt")));
        }

        double diskPerDocument() {
            return diskBytes / documents;
        }
    }
}
