package io.simdex.loadtest.report;

import com.google.gson.JsonObject;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A collection that outgrew the size it was created for, beside one created for what it holds:
 * batched {@code run --target grown --compare sized} reports ({@code run-*.json}, each on fresh
 * servers), then each store's {@code stats} ({@code stats-grown.txt}, {@code stats-sized.txt})
 * and {@code du -sb} of its data directory ({@code disk-grown.txt}, {@code disk-sized.txt}).
 * It decides no target: it says what a collection pays for outgrowing its {@code --expected}.
 */
final class GrownFigure implements Figure {
    private static final List<String> STORES = List.of("grown", "sized");

    @Override
    public String results(FigureDir dir) {
        List<List<String>> rows = new ArrayList<>();
        List<Double> ratios = new ArrayList<>();
        for (Path file : dir.files("run-*.json")) {
            ResultJson r = ResultJson.read(file);
            JsonObject grownRun = r.requiredRunReport("grown");
            JsonObject sizedRun = r.requiredRunReport("sized");
            double grown = r.number(grownRun, "median.itemsPerSecond");
            double sized = r.number(sizedRun, "median.itemsPerSecond");
            ratios.add(grown / sized);
            rows.add(List.of("`" + file.getFileName() + "`", Md.count(grown), Md.runs(r.perRun(grownRun, "itemsPerSecond"), Md::count),
                    Md.count(sized), Md.runs(r.perRun(sizedRun, "itemsPerSecond"), Md::count), "**" + Md.fixed(grown / sized, 2) + "**"));
        }
        StringBuilder out = new StringBuilder(Md.table(List.of("run", "grown, fingerprints/s (median run)", "runs",
                "sized, fingerprints/s (median run)", "runs", "grown / sized"), rows));
        out.append("\nMedian of the runs' ratios: **").append(Md.fixed(Md.median(ratios), 2)).append("**.\n\n");
        List<List<String>> bytes = new ArrayList<>();
        for (String store : STORES) {
            Path stats = dir.dir().resolve("stats-" + store + ".txt");
            double documents = StatsText.number(stats, "documents");
            double fingerprints = StatsText.number(stats, "fingerprints");
            if (documents <= 0 || fingerprints <= 0) {
                throw new IllegalArgumentException(stats + ": no documents");
            }
            bytes.add(List.of("`stats-" + store + ".txt`, `disk-" + store + ".txt`", store, Md.count(documents),
                    Md.fixed(StatsText.number(stats, "table bytes") / fingerprints, 1),
                    Md.fixed(DuText.bytes(dir.dir().resolve("disk-" + store + ".txt")) / documents, 1)));
        }
        return out + Md.table(List.of("files", "store", "documents", "tables, B per fingerprint", "all files on disk, B per document"), bytes);
    }

    @Override
    public List<Target> targets(FigureDir dir) {
        return List.of();
    }
}
