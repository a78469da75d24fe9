package io.simdex.loadtest.report;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code load} reports ({@code run-*.json}) of a bulk load into an empty store, and the server's
 * {@code stats} after the last one ({@code stats.txt}); targets 5 (time) and 6 (bytes per fingerprint).
 */
final class BulkLoadFigure implements Figure {
    /** Target 5: the whole load in under three minutes. */
    static final double MAX_SECONDS = 180;
    /** Target 6: the four bucket tables take at most this many bytes per fingerprint. */
    static final double MAX_BYTES_PER_FP = 48;

    @Override
    public String results(FigureDir dir) {
        List<List<String>> rows = new ArrayList<>();
        for (Path file : dir.files("run-*.json")) {
            ResultJson r = ResultJson.read(file);
            rows.add(List.of("`" + file.getFileName() + "`", Md.count(r.number("documents")), Md.fixed(r.number("seconds"), 1),
                    Md.count(r.number("docsPerSecond"))));
        }
        return Md.table(List.of("run", "documents", "seconds", "documents/s"), rows)
                + "\nMedian load time: **" + Md.fixed(medianSeconds(dir), 1) + " s**. After the last load the server's `stats` "
                + "(`stats.txt`) give " + Md.count(stat(dir, "table bytes")) + " table bytes for " + Md.count(stat(dir, "fingerprints"))
                + " fingerprints: **" + Md.fixed(bytesPerFingerprint(dir), 1) + " B per fingerprint**.\n";
    }

    @Override
    public List<Target> targets(FigureDir dir) {
        double seconds = medianSeconds(dir);
        double bytes = bytesPerFingerprint(dir);
        return List.of(
                new Target("5", "bulk load of 50M in under 3 minutes", Md.fixed(seconds, 1) + " s (median of "
                        + Md.counted(dir.files("run-*.json").size(), "load") + ")", seconds < MAX_SECONDS, dir.name()),
                new Target("6", "at most " + Md.count(MAX_BYTES_PER_FP) + " B per fingerprint for the four tables at 50M",
                        Md.fixed(bytes, 1) + " B", bytes <= MAX_BYTES_PER_FP, dir.name()));
    }

    private static double medianSeconds(FigureDir dir) {
        return dir.median("run-*.json", r -> r.number("seconds"));
    }

    private static double bytesPerFingerprint(FigureDir dir) {
        return stat(dir, "table bytes") / stat(dir, "fingerprints");
    }

    /** A "name: number" line of {@code simdex stats}' output in {@code stats.txt}. */
    private static double stat(FigureDir dir, String name) {
        return StatsText.number(dir.dir().resolve("stats.txt"), name);
    }
}
