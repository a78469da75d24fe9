package io.simdex.loadtest.run;

import io.simdex.loadtest.DurationConverter;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A warm-up, then N measured runs of one workload at one concurrency or rate, and their median.
 * With several subjects (simdex and the echo floor), runs alternate A, B, A, B, ... so that
 * drift on a shared machine (other jobs, thermal limits) lands on both alike.
 */
final class Measurement {
    private Measurement() {
    }

    /** A target with its workload, and its own clock of the calls (null: none asked). */
    record Subject(Target target, Workload workload, ServerTimes serverTimes) {
    }

    /** The report of one subject in one configuration: settings, every run, and the median run. */
    record Report(Map<String, Object> settings, List<RunResult> runs, RunResult median) {
    }

    static List<Report> measure(List<Subject> subjects, WorkloadOptions w, BoundOptions b,
                                int concurrency, double rate, int maxInFlight) throws InterruptedException {
        LoadLoop.Bound measured = b.measured();
        if (!b.warmup.isZero()) {
            for (Subject s : subjects) {
                once(s.workload(), concurrency, rate, maxInFlight, b.warmup());
            }
        }
        List<List<RunResult>> runs = new ArrayList<>();
        subjects.forEach(s -> runs.add(new ArrayList<>()));
        for (int r = 0; r < b.runs; r++) {
            for (int i = 0; i < subjects.size(); i++) {
                RunResult result = measured(subjects.get(i), concurrency, rate, maxInFlight, measured);
                System.err.println("  " + subjects.get(i).target().name() + " " + w.describe() + " run " + (r + 1) + ": " + result.summary());
                runs.get(i).add(result);
            }
        }
        List<Report> reports = new ArrayList<>();
        for (int i = 0; i < subjects.size(); i++) {
            reports.add(new Report(settings(subjects.get(i).target(), w, b, concurrency, rate), runs.get(i), RunResult.median(runs.get(i))));
        }
        return reports;
    }

    /** The first report's medians over the second's: throughput and latency ratios. */
    static Map<String, Object> ratios(Report a, Report b) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("of", a.settings().get("target") + " / " + b.settings().get("target"));
        m.put("requestsPerSecond", ratio(a.median().requestsPerSecond(), b.median().requestsPerSecond()));
        m.put("latencyP50", ratio(a.median().latencyMicros().p50(), b.median().latencyMicros().p50()));
        m.put("latencyP99", ratio(a.median().latencyMicros().p99(), b.median().latencyMicros().p99()));
        ServerHandling sa = a.median().serverHandlingMicros();
        ServerHandling sb = b.median().serverHandlingMicros();
        m.put("serverHandlingP99", sa == null || sb == null ? null : ratio(sa.p99(), sb.p99()));
        return m;
    }

    private static double ratio(double a, double b) {
        return b == 0 ? Double.NaN : Math.round(a / b * 1000) / 1000.0;
    }

    private static Map<String, Object> settings(Target target, WorkloadOptions w, BoundOptions b, int concurrency, double rate) {
        Map<String, Object> settings = new LinkedHashMap<>();
        settings.put("target", target.name());
        settings.put("address", target.address());
        settings.put("method", w.method.name());
        settings.put("batch", w.batch);
        settings.put("maxDistance", w.maxDistance);
        settings.put("probes", w.probes);
        settings.put("mode", rate > 0 ? "open" : "closed");
        settings.put("concurrency", rate > 0 ? null : concurrency);
        settings.put("rate", rate > 0 ? rate : null);
        settings.put("duration", DurationConverter.format(b.duration));
        settings.put("warmup", DurationConverter.format(b.warmup));
        return settings;
    }

    /** One run, with the server's handling times of exactly its calls when the server keeps them. */
    private static RunResult measured(Subject s, int concurrency, double rate, int maxInFlight, LoadLoop.Bound bound)
            throws InterruptedException {
        if (s.serverTimes() == null) {
            return once(s.workload(), concurrency, rate, maxInFlight, bound);
        }
        s.serverTimes().reset();
        RunResult result = once(s.workload(), concurrency, rate, maxInFlight, bound);
        return result.withServer(s.serverTimes().read());
    }

    static RunResult once(Workload workload, int concurrency, double rate, int maxInFlight, LoadLoop.Bound bound)
            throws InterruptedException {
        return rate > 0 ? LoadLoop.open(workload, rate, bound, maxInFlight) : LoadLoop.closed(workload, concurrency, bound);
    }
}
