package io.simdex.loadtest.run;

import java.util.List;

/**
 * A server's own handling time of one run's calls, percentiles in microseconds ({@link ServerTimes}),
 * and of that, the calls' wait before their handler ran ({@code queued*}).
 */
public record ServerHandling(long calls, double p50, double p90, double p99, double p999, double max,
                             double queuedP50, double queuedP99, double queuedMax) {
    /** Each field's median over several runs; null when a run has no server times. */
    static ServerHandling median(List<ServerHandling> runs) {
        if (runs.isEmpty() || runs.contains(null)) {
            return null;
        }
        return new ServerHandling((long) Percentiles.med(runs, ServerHandling::calls), Percentiles.med(runs, ServerHandling::p50),
                Percentiles.med(runs, ServerHandling::p90), Percentiles.med(runs, ServerHandling::p99),
                Percentiles.med(runs, ServerHandling::p999), Percentiles.med(runs, ServerHandling::max),
                Percentiles.med(runs, ServerHandling::queuedP50), Percentiles.med(runs, ServerHandling::queuedP99),
                Percentiles.med(runs, ServerHandling::queuedMax));
    }
}
