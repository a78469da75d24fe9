package io.simdex.loadtest.run;

import org.HdrHistogram.Histogram;

import java.util.List;
import java.util.function.ToDoubleFunction;

/** Latency summary in microseconds, from an HdrHistogram of nanoseconds. */
public record Percentiles(double p50, double p90, double p99, double p999, double max, double mean) {
    private static final double NANOS_PER_MICRO = 1_000.0;

    static Percentiles of(Histogram nanos) {
        if (nanos.getTotalCount() == 0) {
            return new Percentiles(0, 0, 0, 0, 0, 0);
        }
        return new Percentiles(
                micros(nanos.getValueAtPercentile(50)), micros(nanos.getValueAtPercentile(90)),
                micros(nanos.getValueAtPercentile(99)), micros(nanos.getValueAtPercentile(99.9)),
                micros(nanos.getMaxValue()), Math.round(nanos.getMean() / NANOS_PER_MICRO * 10) / 10.0);
    }

    /** Each percentile's median over several runs (not the percentile of the merged runs). */
    static Percentiles median(List<Percentiles> runs) {
        if (runs.isEmpty() || runs.get(0) == null) {
            return null;
        }
        return new Percentiles(med(runs, Percentiles::p50), med(runs, Percentiles::p90), med(runs, Percentiles::p99),
                med(runs, Percentiles::p999), med(runs, Percentiles::max), med(runs, Percentiles::mean));
    }

    static <T> double med(List<T> runs, ToDoubleFunction<T> field) {
        double[] v = runs.stream().mapToDouble(field).sorted().toArray();
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    private static double micros(long nanos) {
        return Math.round(nanos / NANOS_PER_MICRO * 10) / 10.0;
    }
}
