package io.simdex.loadtest.store;

import io.simdex.fingerprint.BlockTables;
import io.simdex.loadtest.Json;
import io.simdex.loadtest.ideal.IdealIndex;
import io.simdex.loadtest.run.RunResult;
import io.simdex.server.store.BucketTable;
import io.simdex.server.store.CollectionStore;
import io.simdex.server.store.MatchBuffer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * {@code store-bench}: the store's bucket tables against {@link IdealIndex} on the same
 * fingerprints and probes, one thread, in this JVM: load rate, probe rate of each and their
 * ratio, and the store's bytes per fingerprint.
 */
@Command(name = "store-bench", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"The store's tables vs IdealIndex: probe rate, load rate, bytes per fingerprint.",
                "One shard's CollectionStore (4 tables) against the in-memory IdealIndex on the same N fingerprints,",
                "one thread, in this JVM. JSON on stdout."})
public final class StoreBenchCommand implements Callable<Integer> {
    @Option(names = "--count", defaultValue = "1000000", description = "Stored fingerprints, e.g. 10000000 (default: ${DEFAULT-VALUE}).")
    int count;

    @Option(names = "--expected", defaultValue = "0",
            description = "Fingerprints the store is sized for; 0: --count. Fewer than --count: the store grows past its sizing (default: ${DEFAULT-VALUE}).")
    long expected;

    @Option(names = "--queries", defaultValue = "200000", description = "Probes per round, planted at 0..5 bits (default: ${DEFAULT-VALUE}).")
    int queries;

    @Option(names = "--rounds", defaultValue = "7", description = "Timed rounds of each; the first is reported apart as warm-up (default: ${DEFAULT-VALUE}).")
    int rounds;

    @Option(names = "--max-distance", defaultValue = "3", description = "Probe distance, 0..3 (default: ${DEFAULT-VALUE}).")
    int maxDistance;

    @Option(names = "--seed", defaultValue = "42", description = "Seed (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--dir", defaultValue = "loadtest/target/store-bench", description = "Store directory, emptied first (default: ${DEFAULT-VALUE}).")
    Path dir;

    @Option(names = "--keep", description = "Leave the store files in --dir afterwards.")
    boolean keep;

    @Option(names = "--settle", description = {"Before probing, wait (up to SECONDS, ${FALLBACK-VALUE} if not given) until packed tables have packed what the load",
            "left in their delta, as they do once idle: probes then read the run alone (default: probe right after the load)."},
            defaultValue = "0", paramLabel = "SECONDS", fallbackValue = "60", arity = "0..1")
    int settleSeconds;

    @Option(names = "--json", description = "Also write the JSON report here.")
    Path json;

    @Override
    public Integer call() {
        if (count < 1 || queries < 1 || rounds < 2 || expected < 0 || maxDistance < 0 || maxDistance > BlockTables.MAX_DISTANCE) {
            throw new IllegalArgumentException("need --count, --queries >= 1, --rounds >= 2, --expected >= 0, --max-distance 0..3");
        }
        long sizedFor = expected == 0 ? count : expected;
        long[] fps = StoreFixture.stored(seed, count);
        long[] probes = StoreFixture.probes(seed, count, queries);
        Map<String, Object> report = new LinkedHashMap<>();
        report.put("fingerprints", count);
        report.put("sizedFor", sizedFor);
        report.put("queries", queries);
        report.put("maxDistance", maxDistance);
        long t0 = System.nanoTime();
        CollectionStore store = StoreFixture.load(dir, fps, sizedFor);
        double loadSeconds = (System.nanoTime() - t0) / 1e9;
        try {
            t0 = System.nanoTime();
            IdealIndex ideal = IdealIndex.of(fps);
            double buildSeconds = (System.nanoTime() - t0) / 1e9;
            report.put("storeLoad", rate(loadSeconds, count));
            report.put("idealBuild", rate(buildSeconds, count));
            report.put("mismatchedProbes", StoreSizes.mismatches(store.buckets(), ideal, probes, maxDistance));
            report.put("unpackedAtLoadEnd", store.buckets().unpacked());
            if (settleSeconds > 0) {
                report.put("settleSeconds", settle(store.buckets()));
            }
            report.put("unpackedWhenProbed", store.buckets().unpacked());
            probeRounds(store.buckets(), ideal, probes, report);
            report.put("sizes", StoreSizes.of(store.buckets(), dir, count, ideal));
        } finally {
            store.close();
            if (!keep) {
                StoreFixture.delete(dir);
            }
        }
        Json.emit(report, json);
        return 0;
    }

    /**
     * Waits until the tables' delta is packed, polling, up to {@code --settle} seconds; returns
     * how long it took. Idle tables pack a delta that holds at least a 64th of them, 10 s after
     * their last write (PackedCompactions), so a smaller one is still there when this gives up.
     */
    private double settle(BucketTable buckets) {
        long start = System.nanoTime();
        long deadline = start + TimeUnit.SECONDS.toNanos(settleSeconds);
        while (buckets.unpacked() > 0 && System.nanoTime() < deadline) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
        }
        return round((System.nanoTime() - start) / 1e9);
    }

    /** Alternates store and ideal rounds so drift (GC, other load on the machine) hits both alike. */
    private void probeRounds(BucketTable buckets, IdealIndex ideal, long[] probes, Map<String, Object> report) {
        List<Double> store = new ArrayList<>();
        List<Double> reference = new ArrayList<>();
        for (int r = 0; r < rounds; r++) {
            store.add(round(probes.length / storeRound(buckets, probes)));
            reference.add(round(probes.length / idealRound(ideal, probes)));
            System.err.printf("store-bench round %d: store %,.0f q/s, ideal %,.0f q/s%n", r + 1, store.get(r), reference.get(r));
        }
        double storeMedian = median(store.subList(1, rounds));
        double idealMedian = median(reference.subList(1, rounds));
        report.put("storeQueriesPerSecond", median(storeMedian, store));
        report.put("idealQueriesPerSecond", median(idealMedian, reference));
        report.put("storeToIdealRatio", Math.round(storeMedian / idealMedian * 1000) / 1000.0);
    }

    /** Seconds for one pass over the probes, 4 buckets each; the match count is kept live. */
    private double storeRound(BucketTable buckets, long[] probes) {
        MatchBuffer buffer = new MatchBuffer();
        long matches = 0;
        long t0 = System.nanoTime();
        for (long p : probes) {
            buffer.clear();
            for (int t = 0; t < BlockTables.TABLES; t++) {
                buckets.probe(t, p, maxDistance, buffer);
            }
            matches += buffer.size();
        }
        return seconds(t0, matches);
    }

    private double idealRound(IdealIndex ideal, long[] probes) {
        MatchBuffer buffer = new MatchBuffer();
        long matches = 0;
        long t0 = System.nanoTime();
        for (long p : probes) {
            buffer.clear();
            ideal.probe(p, maxDistance, buffer);
            matches += buffer.size();
        }
        return seconds(t0, matches);
    }

    private static double seconds(long t0, long matches) {
        double s = (System.nanoTime() - t0) / 1e9;
        if (matches < 0) {
            throw new AssertionError("unreachable: keeps the match count live");
        }
        return s;
    }

    private static Map<String, Object> rate(double seconds, long count) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("seconds", round(seconds));
        m.put("fingerprintsPerSecond", round(count / seconds));
        return m;
    }

    private static Map<String, Object> median(double median, List<Double> rounds) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("median", median);
        m.put("roundsFirstIsWarmup", rounds);
        return m;
    }

    static double median(List<Double> values) {
        double[] v = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    static double round(double v) {
        return RunResult.round(v);
    }

    static long[] distinctSorted(long[] v) {
        return Arrays.stream(v).distinct().sorted().toArray();
    }
}
