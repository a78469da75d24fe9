package io.simdex.loadtest.report;

import com.google.gson.JsonObject;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Batched {@code run} reports ({@code run-*.json}, each on a fresh server): items per second,
 * simdex's median run and every run; the echo's median when the run compared one.
 */
final class BatchFigure implements Figure {
    private final String unit;
    private final String targetId;
    private final String goal;
    private final double minimum;

    /** A figure that decides target {@code targetId}: at least {@code minimum} {@code unit} by the median. */
    BatchFigure(String unit, String targetId, String goal, double minimum) {
        this.unit = unit;
        this.targetId = targetId;
        this.goal = goal;
        this.minimum = minimum;
    }

    @Override
    public String results(FigureDir dir) {
        List<List<String>> rows = new ArrayList<>();
        for (Path file : dir.files("run-*.json")) {
            ResultJson r = ResultJson.read(file);
            JsonObject simdex = r.requiredRunReport("simdex");
            JsonObject echo = r.runReport("echo");
            rows.add(List.of("`" + file.getFileName() + "`",
                    "**" + Md.count(r.number(simdex, "median.itemsPerSecond")) + "**",
                    Md.runs(r.perRun(simdex, "itemsPerSecond"), Md::count),
                    Md.millis(r.number(simdex, "median.latencyMicros.p50")) + " / " + Md.millis(r.number(simdex, "median.latencyMicros.p99")),
                    echo == null ? "not run" : Md.count(r.number(echo, "median.itemsPerSecond"))));
        }
        return Md.table(List.of("run", "simdex " + unit + " (median run)", "runs", "ms per call p50 / p99", "echo " + unit),
                rows) + "\nMedian of the runs' medians: **" + Md.count(median(dir)) + " " + unit + "**.\n";
    }

    @Override
    public List<Target> targets(FigureDir dir) {
        double median = median(dir);
        return List.of(new Target(targetId, goal, Md.count(median) + " " + unit + " (median of the medians of "
                + Md.counted(dir.files("run-*.json").size(), "run") + ")", median >= minimum, dir.name()));
    }

    private double median(FigureDir dir) {
        return dir.median("run-*.json", r -> r.number(r.requiredRunReport("simdex"), "median.itemsPerSecond"));
    }
}
