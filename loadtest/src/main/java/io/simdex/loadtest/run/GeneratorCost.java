package io.simdex.loadtest.run;

import java.lang.management.CompilationMXBean;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.List;

/**
 * What the load generator's own JVM spent during a run: milliseconds of JIT compilation (summed
 * over its compiler threads) and of garbage collection. On a machine the server shares, a run in
 * which the generator was still compiling measured the generator's warm-up as much as the server
 * (without settling, up to 862 ms of compiling in an 8 s run, each burst holding one of two cores).
 * ghz, compiled ahead of time, has no such cost; reporting it per run says which runs had it.
 */
public record GeneratorCost(long compileMillis, long gcMillis) {
    private static final CompilationMXBean JIT = ManagementFactory.getCompilationMXBean();

    /** Each field's median over several runs; null when a run has none. */
    static GeneratorCost median(List<GeneratorCost> runs) {
        if (runs.isEmpty() || runs.contains(null)) {
            return null;
        }
        return new GeneratorCost((long) Percentiles.med(runs, GeneratorCost::compileMillis), (long) Percentiles.med(runs, GeneratorCost::gcMillis));
    }

    /** The totals so far, to subtract from later ones. */
    static GeneratorCost now() {
        long compile = JIT != null && JIT.isCompilationTimeMonitoringSupported() ? JIT.getTotalCompilationTime() : 0;
        long gc = 0;
        for (GarbageCollectorMXBean b : ManagementFactory.getGarbageCollectorMXBeans()) {
            gc += Math.max(0, b.getCollectionTime());
        }
        return new GeneratorCost(compile, gc);
    }

    /** The cost from {@code start} until now. */
    static GeneratorCost since(GeneratorCost start) {
        GeneratorCost end = now();
        return new GeneratorCost(end.compileMillis - start.compileMillis, end.gcMillis - start.gcMillis);
    }
}
