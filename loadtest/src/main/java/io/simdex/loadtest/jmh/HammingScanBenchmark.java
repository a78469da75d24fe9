package io.simdex.loadtest.jmh;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * The kernel of every probe: XOR and POPCNT over one bucket. At 1M fingerprints a bucket holds
 * about 15 entries (1M / 65,536), at 10M about 150, at 1B about 15,000. Scans per second times
 * {@code size} is entries per second.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class HammingScanBenchmark {
    /** The 48 bits a bucket entry keeps, as the store's pages do. */
    private static final long RESIDUE_MASK = (1L << 48) - 1;

    @Param({"16", "150", "1500", "15000"})
    int size;

    private long[] bucket;
    private long probe;

    @Setup
    public void setUp() {
        SplittableRandom random = new SplittableRandom(42);
        bucket = new long[size];
        for (int i = 0; i < size; i++) {
            bucket[i] = random.nextLong();
        }
        probe = bucket[size / 2] ^ 0b111; // one neighbour at distance 3
    }

    /** Full 64-bit fingerprints, as IdealIndex stores them. */
    @Benchmark
    public int scanFingerprints() {
        final long[] b = bucket;
        final long p = probe;
        int found = 0;
        for (long f : b) {
            found += Long.bitCount(f ^ p) <= 3 ? 1 : 0;
        }
        return found;
    }

    /** 48-bit residues, masked as read, as BucketTable's pages keep them. */
    @Benchmark
    public int scanResidues() {
        final long[] b = bucket;
        final long p = probe & RESIDUE_MASK;
        int found = 0;
        for (long f : b) {
            found += Long.bitCount((f & RESIDUE_MASK) ^ p) <= 3 ? 1 : 0;
        }
        return found;
    }
}
