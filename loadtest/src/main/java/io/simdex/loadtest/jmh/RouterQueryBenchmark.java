package io.simdex.loadtest.jmh;

import io.simdex.loadtest.gen.Fingerprints;
import io.simdex.loadtest.store.StoreFixture;
import io.simdex.router.EmbeddedSimdex;
import io.simdex.router.index.IndexRouter;
import io.simdex.router.index.Window;
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
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@link IndexRouter#query} in-process: the router's fan-out to 4 local shards (probe the four
 * buckets, resolve ids, merge, sort nearest first) with no gRPC. Calls per second; probes per
 * second is that times {@code batch}. Compare with the gRPC figures of {@code run} to see what
 * the wire costs.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class RouterQueryBenchmark {
    private static final String COLLECTION = "default";
    private static final int LOAD_BATCH = 10_000;
    private static final int PROBES = 1 << 16;

    @Param({"200000"})
    int documents;

    @Param({"1", "1000"})
    int batch;

    private Path dir;
    private EmbeddedSimdex simdex;
    private IndexRouter index;
    private long[][] requests;
    private int next;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        dir = Files.createTempDirectory("simdex-jmh-router");
        simdex = EmbeddedSimdex.start(dir, 4, "127.0.0.1", 0, documents);
        index = simdex.index();
        for (int from = 0; from < documents; from += LOAD_BATCH) {
            int n = Math.min(LOAD_BATCH, documents - from);
            String[] ids = new String[n];
            long[] fps = new long[n];
            for (int i = 0; i < n; i++) {
                ids[i] = Fingerprints.storedId(from + i);
                fps[i] = Fingerprints.stored(42, from + i);
            }
            index.insert(COLLECTION, Window.FOREVER, ids, fps);
        }
        long[] probes = StoreFixture.probes(42, documents, PROBES);
        requests = new long[Math.max(1, PROBES / batch)][];
        for (int r = 0; r < requests.length; r++) {
            requests[r] = Arrays.copyOfRange(probes, r * batch, r * batch + batch);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        simdex.close();
        StoreFixture.delete(dir);
    }

    @Benchmark
    public List<IndexRouter.Nearest> query() {
        long[] probes = requests[next++ % requests.length];
        return index.query(COLLECTION, Window.FOREVER, probes, 3, 0);
    }
}
