package io.simdex.loadtest.run;

import java.util.List;

/**
 * One measured run. {@code latencyMicros} is per successful call: in a closed loop from send to
 * response (service time as one of C callers sees it); in an open loop from the call's intended
 * start on the fixed schedule, so time spent queued behind a slow call counts (no coordinated
 * omission). {@code dispatchLagMicros} (open loop only) is how late the generator itself sent
 * calls: if its p99 approaches the latency's, the generator, not the server, is the limit.
 * {@code serverHandlingMicros} is the target's own handling time of the run's calls, from their
 * arrival at its transport to their status, when the target reports it (simdex and the echo do).
 * {@code generator} is what the load generator's own JIT and GC took during the run.
 *
 * @param mode        "closed" or "open"
 * @param targetRate  calls/s asked for (open loop), 0 in a closed loop
 * @param requests    calls completed, failed ones included
 * @param errors      calls that ended with a non-OK status
 * @param firstError  the first failure's status, or null
 */
public record RunResult(String mode, int concurrency, double targetRate, long requests, long errors, String firstError,
                        double seconds, double requestsPerSecond, double itemsPerSecond,
                        Percentiles latencyMicros, Percentiles dispatchLagMicros, ServerHandling serverHandlingMicros,
                        GeneratorCost generator) {

    /** Field-wise medians of several runs of one configuration. */
    static RunResult median(List<RunResult> runs) {
        RunResult first = runs.get(0);
        long errors = runs.stream().mapToLong(RunResult::errors).sum();
        return new RunResult(first.mode, first.concurrency, first.targetRate,
                (long) Percentiles.med(runs, RunResult::requests), errors, first.firstError,
                round(Percentiles.med(runs, RunResult::seconds)),
                round(Percentiles.med(runs, RunResult::requestsPerSecond)),
                round(Percentiles.med(runs, RunResult::itemsPerSecond)),
                Percentiles.median(runs.stream().map(RunResult::latencyMicros).toList()),
                Percentiles.median(runs.stream().map(RunResult::dispatchLagMicros).toList()),
                ServerHandling.median(runs.stream().map(RunResult::serverHandlingMicros).toList()),
                GeneratorCost.median(runs.stream().map(RunResult::generator).toList()));
    }

    /** This run with the server's handling times and the generator's own cost. */
    RunResult with(ServerHandling handling, GeneratorCost cost) {
        return new RunResult(mode, concurrency, targetRate, requests, errors, firstError, seconds, requestsPerSecond,
                itemsPerSecond, latencyMicros, dispatchLagMicros, handling, cost);
    }

    /** One decimal below 1,000; whole numbers above, where a decimal is noise. */
    public static double round(double v) {
        return Math.abs(v) >= 1_000 ? Math.rint(v) : Math.round(v * 10) / 10.0;
    }

    /** One line for a terminal. */
    String summary() {
        Percentiles l = latencyMicros;
        ServerHandling s = serverHandlingMicros;
        return String.format("%s c=%d rate=%s: %,d calls (%d errors) in %.1fs, %,.0f calls/s, %,.0f items/s; "
                        + "latency us p50 %.0f p90 %.0f p99 %.0f p99.9 %.0f max %.0f%s%s",
                mode, concurrency, targetRate > 0 ? String.format("%,.0f/s", targetRate) : "-", requests, errors, seconds,
                requestsPerSecond, itemsPerSecond, l.p50(), l.p90(), l.p99(), l.p999(), l.max(),
                s == null ? "" : String.format("; server handling us p50 %.0f p99 %.0f max %.0f (queued p99 %.0f)", s.p50(), s.p99(), s.max(), s.queuedP99()),
                generator == null ? "" : String.format("; generator JIT %d ms, GC %d ms", generator.compileMillis(), generator.gcMillis()));
    }
}
