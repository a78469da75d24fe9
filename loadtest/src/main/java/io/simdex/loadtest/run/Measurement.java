package io.simdex.loadtest.run;

import io.simdex.loadtest.DurationConverter;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A warm-up, settling cycles, then N measured runs of one workload at one concurrency or rate,
 * and their median. With several subjects (simdex and the echo floor), runs alternate A, B, A, B,
 * ... so that drift on a shared machine (other jobs, thermal limits) lands on both alike.
 */
final class Measurement {
    /** Longest settling run; shorter when the measured runs are. */
    private static final long SETTLE_RUN_NANOS = TimeUnit.SECONDS.toNanos(3);
    /** A settling cycle in which the generator compiled for at most this share of it is quiet. */
    private static final double QUIET_COMPILE_SHARE = 0.03;

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
        Settling settling = Settling.NONE;
        if (!b.warmup.isZero()) {
            for (Subject s : subjects) {
                once(s.workload(), concurrency, rate, maxInFlight, b.warmup());
            }
            settling = settle(subjects, b, concurrency, rate, maxInFlight);
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
            reports.add(new Report(settings(subjects.get(i).target(), w, b, concurrency, rate, settling), runs.get(i), RunResult.median(runs.get(i))));
        }
        return reports;
    }

    /**
     * Short cycles of the measured path itself (each subject in turn: reset its server's times,
     * run, read them) until one passes in which the generator's JIT was quiet, at most
     * {@code --settle-cycles}. A plain warm-up is not enough: the reads and resets between runs,
     * and each switch of subject, take branches and types the warm-up never did, so without
     * settling the generator throws away and recompiles its call paths during the first two
     * measured runs (862 ms and 596 ms of compiling in simdex's runs 1 and 2 at 15,000 calls/s
     * after a 10 s warm-up, 12 ms in run 3), on the cores the server is being measured on.
     */
    private static Settling settle(List<Subject> subjects, BoundOptions b, int concurrency, double rate, int maxInFlight)
            throws InterruptedException {
        LoadLoop.Bound run = new LoadLoop.Bound(0, Math.min(SETTLE_RUN_NANOS, b.duration.toNanos()));
        for (int cycle = 1; cycle <= b.settleCycles; cycle++) {
            long start = System.nanoTime();
            GeneratorCost before = GeneratorCost.now();
            for (Subject s : subjects) {
                measured(s, concurrency, rate, maxInFlight, run);
            }
            long compiled = GeneratorCost.since(before).compileMillis();
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            boolean quiet = compiled <= QUIET_COMPILE_SHARE * millis;
            System.err.printf("  settling, cycle %d: the generator's JIT compiled for %d ms of %d ms%s%n",
                    cycle, compiled, millis, quiet ? ": quiet" : "");
            if (quiet) {
                return new Settling(cycle, true);
            }
        }
        if (b.settleCycles > 0) {
            System.err.println("  not quiet after " + b.settleCycles + " settling cycles; each run reports the generator's JIT time");
        }
        return new Settling(b.settleCycles, false);
    }

    /** How many settling cycles ran, and whether the last was quiet. */
    private record Settling(int cycles, boolean quiet) {
        static final Settling NONE = new Settling(0, false);
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

    private static Map<String, Object> settings(Target target, WorkloadOptions w, BoundOptions b, int concurrency, double rate,
                                                Settling settling) {
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
        settings.put("settlingCycles", settling.cycles());
        settings.put("settled", settling.quiet());
        return settings;
    }

    /**
     * One run, with the server's handling times of exactly its calls when the server keeps them,
     * and what the generator's JIT and GC took meanwhile.
     */
    private static RunResult measured(Subject s, int concurrency, double rate, int maxInFlight, LoadLoop.Bound bound)
            throws InterruptedException {
        // The generator's own garbage is collected here, between runs, not in them: a young pause
        // of its own delays every call due meanwhile, which then reach the server in one burst
        // and count against whichever target was being measured. On the launcher's fixed heap a
        // whole run's garbage fits in the young generation (loadtest README, "Heaps"); a run that
        // still collects says so in generator.gcMillis.
        System.gc();
        if (s.serverTimes() != null) {
            s.serverTimes().reset();
        }
        GeneratorCost before = GeneratorCost.now();
        RunResult result = once(s.workload(), concurrency, rate, maxInFlight, bound);
        GeneratorCost cost = GeneratorCost.since(before);
        return result.with(s.serverTimes() == null ? null : s.serverTimes().read(result.requests()), cost);
    }

    static RunResult once(Workload workload, int concurrency, double rate, int maxInFlight, LoadLoop.Bound bound)
            throws InterruptedException {
        return rate > 0 ? LoadLoop.open(workload, rate, bound, maxInFlight) : LoadLoop.closed(workload, concurrency, bound);
    }
}
