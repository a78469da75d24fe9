package io.simdex.router.index;

import java.util.concurrent.atomic.LongAdder;

/**
 * Process-wide counts of the text probes judged by sketches and of the kept sketches read to
 * judge their candidates (one per distinct candidate fingerprint of a call). Their ratio is the
 * verification work a probe costs, which grows with the store where real text crowds the
 * buckets (loadtest/quality, "Bucket crowding"): exported as {@code simdex_sketch_probes_total}
 * and {@code simdex_sketch_reads_total}; the probes whose candidates {@link VerificationBudget}
 * cut, as {@code simdex_sketch_capped_probes_total}. Counted once per process, so that the index routers a
 * cluster router rebuilds on every partition map keep adding to the same totals.
 */
public final class SketchReads {
    private static final LongAdder PROBES = new LongAdder();
    private static final LongAdder READS = new LongAdder();
    private static final LongAdder CAPPED = new LongAdder();

    private SketchReads() {
    }

    static void probes(int n) {
        PROBES.add(n);
    }

    static void reads(int n) {
        READS.add(n);
    }

    static void capped(int n) {
        CAPPED.add(n);
    }

    /** Text probes judged by sketches so far. */
    public static long probes() {
        return PROBES.sum();
    }

    /** Kept sketches read to judge them so far. */
    public static long reads() {
        return READS.sum();
    }

    /** Text probes whose candidates were cut to {@link VerificationBudget#FINGERPRINTS} so far. */
    public static long capped() {
        return CAPPED.sum();
    }
}
