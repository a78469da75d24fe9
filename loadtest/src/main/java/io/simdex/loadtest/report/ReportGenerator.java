package io.simdex.loadtest.report;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Fills a report template from the figure directories under {@code results}. Placeholders, each
 * alone on its line: {@code {{figure:NAME}}} (a heading with the figure's title; what, when,
 * where, the commands, the results),
 * {@code {{plot:query-unary-10m}}} (an SVG beside the report, and its image link) and
 * {@code {{targets}}} (every target of the figures the template names, with its verdict).
 */
final class ReportGenerator {
    private static final Pattern PLACEHOLDER = Pattern.compile("^\\{\\{(figure|plot|targets)(?::([a-z0-9-]+))?}}$");

    /** The kinds of figure by directory name, in the targets table's order. */
    static final Map<String, Figure> FIGURES = figures();

    private final Path results;
    private final Path reportDir;
    private final Map<String, String> plots = new LinkedHashMap<>();

    ReportGenerator(Path results, Path reportDir) {
        this.results = results;
        this.reportDir = reportDir;
    }

    /** The report's text, one line per template line or a placeholder's expansion; the SVG plots it links are then in {@link #plots()}. */
    String generate(String template) {
        List<String> lines = template.lines().toList();
        List<String> named = new ArrayList<>();
        for (String line : lines) {
            Matcher m = PLACEHOLDER.matcher(line.strip());
            if (m.matches() && "figure".equals(m.group(1))) {
                named.add(figureName(m.group(2), line));
            }
        }
        StringBuilder out = new StringBuilder();
        for (String line : lines) {
            Matcher m = PLACEHOLDER.matcher(line.strip());
            if (!m.matches()) {
                out.append(line).append("\n");
            } else if ("figure".equals(m.group(1))) {
                out.append(figure(FigureDir.open(results, m.group(2))));
            } else if ("plot".equals(m.group(1))) {
                out.append(plot(FigureDir.open(results, figureName(m.group(2), line))));
            } else {
                out.append(targets(named));
            }
        }
        return out.toString();
    }

    /** File name (beside the report) to SVG text, for each plot the template asked for. */
    Map<String, String> plots() {
        return plots;
    }

    private String figure(FigureDir dir) {
        StringBuilder out = new StringBuilder();
        out.append("## ").append(dir.get("title")).append("\n\n");
        out.append("**Measures.** ").append(dir.get("what")).append("\n\n");
        out.append("**Measured** ").append(dir.get("date")).append(", code ").append(dir.get("code")).append(". **Machine:** ")
                .append(dir.get("machine")).append(". Result files: [`").append(link(dir)).append("`](").append(link(dir)).append(").\n\n");
        out.append("```sh\n");
        for (String command : dir.commands()) {
            out.append(command).append("\n");
        }
        out.append("```\n\n");
        return out + FIGURES.get(dir.name()).results(dir);
    }

    private String plot(FigureDir dir) {
        if (!"query-unary-10m".equals(dir.name())) {
            throw new IllegalArgumentException("no plot for figure " + dir.name() + "; plots: query-unary-10m");
        }
        String file = "REPORT-" + dir.name() + ".svg";
        plots.put(file, UnaryPlot.svg(UnaryFigure.rounds(dir)));
        return "![open-loop p99 by round: simdex, 1.5 x the echo, simdex's server](" + file + ")\n";
    }

    private String targets(List<String> named) {
        List<List<String>> rows = new ArrayList<>();
        for (Map.Entry<String, Figure> e : FIGURES.entrySet()) {
            if (!named.contains(e.getKey())) {
                continue;
            }
            FigureDir dir = FigureDir.open(results, e.getKey());
            for (Target t : e.getValue().targets(dir)) {
                rows.add(List.of(t.id(), t.goal(), t.result(), t.met() ? "**met**" : "**not met**",
                        "[" + t.figure() + "](#" + anchor(dir.get("title")) + ")"));
            }
        }
        rows.sort((a, b) -> a.get(0).compareTo(b.get(0)));
        return Md.table(List.of("#", "target", "result", "verdict", "figure"), rows);
    }

    /** The anchor a Markdown renderer gives a heading: lower case, punctuation dropped, spaces as hyphens. */
    static String anchor(String heading) {
        return heading.strip().toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9 _-]", "").replace(' ', '-');
    }

    private String link(FigureDir dir) {
        return reportDir.toAbsolutePath().normalize().relativize(dir.dir().toAbsolutePath().normalize()).toString()
                .replace('\\', '/') + "/";
    }

    private static String figureName(String name, String line) {
        if (name == null || !FIGURES.containsKey(name)) {
            throw new IllegalArgumentException("unknown figure in '" + line.strip() + "'; figures: " + FIGURES.keySet());
        }
        return name;
    }

    private static Map<String, Figure> figures() {
        Map<String, Figure> figures = new LinkedHashMap<>();
        figures.put("store-bench-10m", new StoreBenchFigure());
        figures.put("query-batch-10m", new BatchFigure("fingerprints/s", "2",
                "batched Query at 10M (1,000 fingerprints a call) >= 200,000 fingerprints/s", 200_000));
        figures.put("query-unary-10m", new UnaryFigure());
        figures.put("dedup-batch-10m", new BatchFigure("documents/s", "4",
                "batched Dedup at 10M (1,000 documents a call) >= 100,000 documents/s", 100_000));
        figures.put("bulkload-50m", new BulkLoadFigure());
        figures.put("durability-insert", new DurabilityFigure());
        figures.put("doc-bytes", new DocBytesFigure());
        figures.put("grown-10m", new GrownFigure());
        figures.put("text-modes", new TextModesFigure());
        return Collections.unmodifiableMap(figures);
    }
}
