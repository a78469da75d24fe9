package io.simdex.loadtest.report;

import com.google.gson.JsonObject;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code run} reports ({@code run-*.json}) comparing a server with {@code --durability fsync}
 * (target label "fsync") against one with process (label "process"), one batch size and caller
 * count per file: the median runs' documents per second, their ratio, and latencies. It decides
 * no target.
 */
final class DurabilityFigure implements Figure {
    @Override
    public String results(FigureDir dir) {
        List<List<String>> rows = new ArrayList<>();
        for (Path file : dir.files("run-*.json")) {
            ResultJson r = ResultJson.read(file);
            JsonObject fsync = r.requiredRunReport("fsync");
            JsonObject process = r.requiredRunReport("process");
            double fsyncRate = r.number(fsync, "median.itemsPerSecond");
            double processRate = r.number(process, "median.itemsPerSecond");
            rows.add(List.of("`" + file.getFileName() + "`",
                    Md.count(r.number(fsync, "settings.batch")) + " / " + Md.count(r.number(fsync, "settings.concurrency")),
                    "**" + Md.count(fsyncRate) + "**",
                    Md.count(processRate),
                    "**" + Md.fixed(fsyncRate / processRate, 2) + "**",
                    Md.millis(r.number(fsync, "median.latencyMicros.p50")) + " / " + Md.millis(r.number(process, "median.latencyMicros.p50")),
                    Md.millis(r.number(fsync, "median.latencyMicros.p99")) + " / " + Md.millis(r.number(process, "median.latencyMicros.p99"))));
        }
        return Md.table(List.of("run", "documents a call / callers", "fsync documents/s (median run)", "process documents/s",
                "fsync / process", "ms per call p50, fsync / process", "p99, fsync / process"), rows);
    }

    @Override
    public List<Target> targets(FigureDir dir) {
        return List.of();
    }
}
