package io.simdex.loadtest.run;

import io.simdex.loadtest.Json;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/** {@code run}: one workload, closed loop at a concurrency or open loop at a rate. */
@Command(name = "run", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Drive Query, Dedup, Insert or CheckUrls at a loopback target; report throughput and latency.",
                "Closed loop (--concurrency) or open loop (--rate); HdrHistogram percentiles as JSON on stdout",
                "(and in --json FILE). --compare runs a second target alternately and reports the ratios."})
public final class RunCommand implements Callable<Integer> {
    @Mixin
    TargetOptions target;

    @Mixin
    WorkloadOptions workload;

    @Mixin
    BoundOptions bounds;

    @Option(names = "--concurrency", defaultValue = "1", description = "Closed loop: callers, each waiting for its answer (default: ${DEFAULT-VALUE}).")
    int concurrency;

    @Option(names = "--rate", defaultValue = "0",
            description = "Open loop: calls per second on a fixed schedule, latency from each call's due time; 0: closed loop (default).")
    double rate;

    @Option(names = "--max-in-flight", defaultValue = "10000", description = "Open loop: cap on outstanding calls (default: ${DEFAULT-VALUE}).")
    int maxInFlight;

    @Option(names = "--compare", description = {"A second target run alternately with the first (echo, or HOST:PORT such as a",
            "`serve --kind echo` process); the report adds first/second ratios."})
    String compare;

    @Option(names = "--json", description = "Also write the JSON report here.")
    Path json;

    @Override
    public Integer call() throws Exception {
        try (Subjects subjects = Subjects.open(target, compare, workload)) {
            List<Measurement.Report> reports = Measurement.measure(subjects.list, workload, bounds, concurrency, rate, maxInFlight);
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("reports", reports);
            out.put("ratios", reports.size() > 1 ? Measurement.ratios(reports.get(0), reports.get(1)) : null);
            for (Measurement.Report r : reports) {
                System.err.println("median " + r.settings().get("target") + ": " + r.median().summary());
            }
            if (reports.size() > 1) {
                System.err.println("ratios: " + out.get("ratios"));
            }
            Json.emit(out, json);
            return reports.stream().anyMatch(r -> r.median().errors() > 0) ? 1 : 0;
        }
    }
}
