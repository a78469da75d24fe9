package io.simdex.loadtest.jmh;

import io.simdex.loadtest.store.StoreFixture;
import io.simdex.server.ShardNode;
import io.simdex.server.store.DocMaps;
import io.simdex.server.store.StoreSizing;
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
 * A fingerprint with {@code ids} ids on one shard: what adding and removing one more id costs
 * ({@code attachDetach}, which keeps the count), and reading a page of 100 of them with the
 * count ({@code resolvePage}). Both should not depend on {@code ids}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class HotFingerprintBenchmark {
    private static final String COLLECTION = "c";
    private static final long HOT = 0x0f0f_1234_5678_9abcL;
    private static final int CHUNK = 10_000;

    @Param({"1", "1000", "1000000"})
    int ids;

    private Path dir;
    private ShardNode node;
    private final long[] hot = {HOT};
    private final String[] extra = {"one-more"};
    private int next;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        dir = Files.createTempDirectory("simdex-jmh-hot");
        node = new ShardNode(dir, c -> StoreSizing.forShare(1_000_000, 1, 16));
        for (int from = 0; from < ids; from += CHUNK) {
            int n = Math.min(CHUNK, ids - from);
            String[] chunk = new String[n];
            long[] fps = new long[n];
            for (int i = 0; i < n; i++) {
                chunk[i] = String.format("copy-%010d", from + i);
                fps[i] = HOT;
            }
            node.attachIds(COLLECTION, 0, fps, chunk);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        node.close();
        StoreFixture.delete(dir);
    }

    @Benchmark
    public boolean attachDetach() {
        extra[0] = "one-more-" + (next++ & 1023);
        node.attachIds(COLLECTION, 0, hot, extra);
        return node.detachIds(COLLECTION, 0, hot, extra)[0];
    }

    @Benchmark
    public DocMaps.IdList resolvePage() {
        return node.resolveIds(COLLECTION, 0, HOT, 100);
    }
}
