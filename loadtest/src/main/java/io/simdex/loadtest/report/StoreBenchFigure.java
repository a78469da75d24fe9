package io.simdex.loadtest.report;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** {@code store-bench} runs ({@code run-*.json}): the bucket store against the ideal index; target 1. */
final class StoreBenchFigure implements Figure {
    /** Target 1: the store answers at least half as many probes per second as the ideal index. */
    static final double MIN_RATIO = 0.5;

    @Override
    public String results(FigureDir dir) {
        List<List<String>> rows = new ArrayList<>();
        for (Path file : dir.files("run-*.json")) {
            ResultJson r = ResultJson.read(file);
            rows.add(List.of("`" + file.getFileName() + "`",
                    Md.count(r.number("storeQueriesPerSecond.median")),
                    Md.count(r.number("idealQueriesPerSecond.median")),
                    Md.fixed(r.number("storeToIdealRatio"), 3),
                    Md.count(r.number("storeLoad.fingerprintsPerSecond")),
                    Md.fixed(r.number("sizes.offHeapBytesPerFingerprint"), 1),
                    Md.count(r.number("mismatchedProbes"))));
        }
        return Md.table(List.of("run", "store queries/s", "ideal queries/s", "store / ideal", "store load fp/s",
                "bytes / fp", "mismatched probes"), rows)
                + "\nMedian store / ideal: **" + Md.fixed(medianRatio(dir), 3) + "**.\n";
    }

    @Override
    public List<Target> targets(FigureDir dir) {
        double ratio = medianRatio(dir);
        return List.of(new Target("1", "store probe at 10M >= " + MIN_RATIO + " of the ideal index, same run",
                Md.fixed(ratio, 3) + " (median of " + Md.counted(dir.files("run-*.json").size(), "run") + ")", ratio >= MIN_RATIO, dir.name()));
    }

    private static double medianRatio(FigureDir dir) {
        return dir.median("run-*.json", r -> r.number("storeToIdealRatio"));
    }
}
