package io.simdex.loadtest.jmh;

import io.simdex.fingerprint.BlockTables;
import io.simdex.loadtest.ideal.IdealIndex;
import io.simdex.loadtest.store.StoreFixture;
import io.simdex.server.store.BucketTable;
import io.simdex.server.store.CollectionStore;
import io.simdex.server.store.MatchBuffer;
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
import org.openjdk.jmh.annotations.Warmup;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * One query (4 bucket probes, distance 3) against {@code count} random fingerprints, in the
 * store's tables ({@code impl=store}) or the plain-array {@link IdealIndex}
 * ({@code impl=ideal}). Probes are planted at 0..5 bits from stored fingerprints. Use
 * {@code -p count=10000000} for 10M (the store then takes a minute or two to load).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class StoreProbeBenchmark {
    private static final int PROBES = 1 << 16;

    @Param({"1000000"})
    int count;

    @Param({"store", "ideal"})
    String impl;

    private long[] probes;
    private Path dir;
    private CollectionStore store;
    private BucketTable buckets;
    private IdealIndex ideal;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        long[] fps = StoreFixture.stored(42, count);
        probes = StoreFixture.probes(42, count, PROBES);
        if (impl.equals("store")) {
            dir = Files.createTempDirectory("simdex-jmh-store");
            store = StoreFixture.load(dir, fps);
            buckets = store.buckets();
        } else {
            ideal = IdealIndex.of(fps);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        if (store != null) {
            store.close();
            StoreFixture.delete(dir);
        }
    }

    /** Per-thread cursor and match buffer: probing allocates nothing. */
    @State(Scope.Thread)
    public static class Cursor {
        int next;
        final MatchBuffer storeMatches = new MatchBuffer();
        final MatchBuffer idealMatches = new MatchBuffer();
    }

    @Benchmark
    public int query(Cursor c) {
        long probe = probes[c.next++ & (PROBES - 1)];
        if (buckets != null) {
            c.storeMatches.clear();
            for (int t = 0; t < BlockTables.TABLES; t++) {
                buckets.probe(t, probe, 3, c.storeMatches);
            }
            return c.storeMatches.size();
        }
        c.idealMatches.clear();
        ideal.probe(probe, 3, c.idealMatches);
        return c.idealMatches.size();
    }
}
