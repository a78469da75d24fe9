package io.simdex.loadtest.jmh;

import io.simdex.fingerprint.BlockTables;
import io.simdex.loadtest.store.StoreFixture;
import io.simdex.server.store.BucketTable;
import io.simdex.server.store.CollectionStore;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * A Dedup's bucket writes from two threads at once: a new fingerprint added to its 4 buckets
 * one by one (the checked path a Dedup's stored document takes), then removed, so the tables
 * keep {@code count} fingerprints and no compaction runs while it measures. Writers share
 * nothing but the store, so what one write does to a word every writer touches shows here.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@Threads(2)
public class StoreWriteBenchmark {
    @Param({"1000000"})
    int count;

    private Path dir;
    private CollectionStore store;
    private BucketTable buckets;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        dir = Files.createTempDirectory("simdex-jmh-write");
        store = StoreFixture.load(dir, StoreFixture.stored(42, count));
        buckets = store.buckets();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        store.close();
        StoreFixture.delete(dir);
    }

    /** Each thread's own fingerprints, from its own seed. */
    @State(Scope.Thread)
    public static class Writer {
        final SplittableRandom random = new SplittableRandom(Thread.currentThread().getId());
    }

    @Benchmark
    public boolean addThenRemove(Writer w) {
        long fp = w.random.nextLong();
        boolean added = true;
        for (int t = 0; t < BlockTables.TABLES; t++) {
            added &= buckets.add(t, fp);
        }
        for (int t = 0; t < BlockTables.TABLES; t++) {
            buckets.remove(t, fp);
        }
        return added;
    }
}
