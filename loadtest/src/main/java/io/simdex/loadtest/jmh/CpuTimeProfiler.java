package io.simdex.loadtest.jmh;

import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ScalarResult;

import java.lang.management.ManagementFactory;
import java.util.List;

/**
 * The forked JVM's CPU time per operation ({@code -prof io.simdex.loadtest.jmh.CpuTimeProfiler}):
 * every thread's, the server's included, so a benchmark that calls an embedded server through
 * gRPC is charged for all the work an operation causes, GC and JIT too. On a machine shared
 * with other loads the wall time per operation grows with their demand; the CPU time grows
 * far less, so two parameters of one benchmark compare by it (DedupTextBenchmark's off / on).
 */
public final class CpuTimeProfiler implements InternalProfiler {
    private static final com.sun.management.OperatingSystemMXBean OS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    private long startNanos;

    @Override
    public String getDescription() {
        return "process CPU time per operation (us/op)";
    }

    @Override
    public void beforeIteration(BenchmarkParams benchmark, IterationParams iteration) {
        startNanos = OS.getProcessCpuTime();
    }

    @Override
    public List<? extends Result> afterIteration(BenchmarkParams benchmark, IterationParams iteration, IterationResult result) {
        long cpu = OS.getProcessCpuTime() - startNanos;
        long ops = result.getMetadata().getAllOps();
        double perOp = ops == 0 ? Double.NaN : cpu / 1_000.0 / ops;
        return List.of(new ScalarResult("cpu.time.norm", perOp, "us/op", AggregationPolicy.AVG));
    }
}
