package io.simdex.loadtest.run;

import io.simdex.loadtest.DurationConverter;
import com.google.gson.reflect.TypeToken;
import io.simdex.loadtest.Json;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/** {@code sweep}: open-loop runs at rising rates, plotted as latency against throughput. */
@Command(name = "sweep", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Open-loop runs at rising rates, plotted as latency against throughput.",
                "One run per --rates value, reported as JSON and plotted (HTML, inline SVG); --compare adds a",
                "second target's curve, run alternately at the same rates (e.g. the echo floor)."})
public final class SweepCommand implements Callable<Integer> {
    @Mixin
    TargetOptions target;

    @Mixin
    WorkloadOptions workload;

    @Mixin
    BoundOptions bounds;

    @Option(names = "--rates", split = ",", description = "Calls per second, e.g. 500,1000,2000,4000.")
    List<Double> rates;

    @Option(names = "--replot", description = "Send no load: redraw --html from a sweep JSON report written earlier.")
    Path replot;

    @Option(names = "--compare", description = {"A second target swept at the same rates and plotted beside the first:",
            "echo (started in this JVM) or HOST:PORT, e.g. a `serve --kind echo` process."})
    String compare;

    @Option(names = "--max-in-flight", defaultValue = "10000", description = "Cap on outstanding calls (default: ${DEFAULT-VALUE}).")
    int maxInFlight;

    @Option(names = "--html", defaultValue = "loadtest/target/sweep.html", description = "Plot (default: ${DEFAULT-VALUE}).")
    Path html;

    @Option(names = "--json", defaultValue = "loadtest/target/sweep.json", description = "Report (default: ${DEFAULT-VALUE}).")
    Path json;

    @Override
    public Integer call() throws Exception {
        if (replot != null) {
            return replot();
        }
        if (rates == null || rates.isEmpty()) {
            throw new IllegalArgumentException("--rates is required (or --replot FILE)");
        }
        Map<String, List<RunResult>> series = new LinkedHashMap<>();
        Map<String, List<Measurement.Report>> reports = new LinkedHashMap<>();
        try (Subjects subjects = Subjects.open(target, compare, workload)) {
            for (Measurement.Subject s : subjects.list) {
                series.put(s.target().name(), new ArrayList<>());
                reports.put(s.target().name(), new ArrayList<>());
            }
            for (int i = 0; i < rates.size(); i++) {
                List<Measurement.Report> atRate = Measurement.measure(subjects.list, workload, i == 0 ? bounds : noWarmup(), 0,
                        rates.get(i), maxInFlight);
                for (int s = 0; s < atRate.size(); s++) {
                    String name = subjects.list.get(s).target().name();
                    series.get(name).add(atRate.get(s).median());
                    reports.get(name).add(atRate.get(s));
                }
            }
        }
        String title = "simdex " + workload.describe() + " latency vs throughput (open loop, "
                + DurationConverter.format(bounds.duration) + " per rate)";
        Files.createDirectories(html.toAbsolutePath().getParent());
        Files.writeString(html, SweepPlot.html(title, series), StandardCharsets.UTF_8);
        Json.emit(reports, json);
        System.err.println("sweep: plot in " + html.toAbsolutePath() + ", report in " + json.toAbsolutePath());
        return 0;
    }

    private int replot() throws IOException {
        Map<String, List<Measurement.Report>> reports = Json.read(replot, new TypeToken<Map<String, List<Measurement.Report>>>() { });
        Map<String, List<RunResult>> series = new LinkedHashMap<>();
        reports.forEach((name, rs) -> series.put(name, rs.stream().map(Measurement.Report::median).toList()));
        Measurement.Report first = reports.values().iterator().next().get(0);
        String title = "simdex " + first.settings().get("method") + " x" + first.settings().get("batch")
                + " latency vs throughput (open loop, " + first.settings().get("duration") + " per rate)";
        Files.writeString(html, SweepPlot.html(title, series), StandardCharsets.UTF_8);
        System.err.println("sweep: plot of " + replot + " in " + html.toAbsolutePath());
        return 0;
    }

    /** The same bounds without the warm-up: only the first rate warms the JIT. */
    private BoundOptions noWarmup() {
        BoundOptions b = new BoundOptions();
        b.duration = bounds.duration;
        b.requests = bounds.requests;
        b.runs = bounds.runs;
        b.warmup = Duration.ZERO;
        return b;
    }
}
