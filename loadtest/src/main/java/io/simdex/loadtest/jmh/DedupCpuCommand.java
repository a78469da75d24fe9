package io.simdex.loadtest.jmh;

import io.simdex.loadtest.gen.TextCorpus;
import io.simdex.proto.v1.CollectionSettings;
import io.simdex.proto.v1.CreateCollectionRequest;
import io.simdex.proto.v1.DedupRequest;
import io.simdex.proto.v1.Document;
import io.simdex.proto.v1.SimdexGrpc;
import io.simdex.proto.v1.ShortFingerprintSettings;
import io.simdex.proto.v1.SketchSettings;
import io.simdex.router.index.SketchReads;
import io.simdex.router.index.VerificationBudget;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@link DedupTextBenchmark}'s workload measured by the CPU time of the one thread that does
 * all of a Dedup's work: the embedded default's API over in-process gRPC with direct executors
 * (local shards answer in the calling thread), so neither other loads of the machine nor the
 * JVM's JIT and GC threads are charged to it, as they are to the process CPU time of
 * {@link CpuTimeProfiler} (on a loaded 2-core machine that moved one parameter from 975 to 172
 * us per text between iterations). Garbage collection of what a request allocates is not
 * counted. The modes' collections live in one embedded instance and take turns batch by batch,
 * so they share its JIT state and the machine's load.
 */
@Command(name = "dedup-cpu", mixinStandardHelpOptions = true,
        description = "CPU time per text of Dedup with sketch verification off and on, in the calling thread.")
public final class DedupCpuCommand implements Callable<Integer> {
    private static final int BATCH = 100;
    private static final int POOL = 4_000;

    @Option(names = "--stored", description = "Texts stored in each collection first (default: ${DEFAULT-VALUE}).")
    int stored = 20_000;

    /**
     * 600: the first 200 batches (20,000 texts a mode) warm up. With 10 batches of warm-up, C2
     * had not yet compiled the cheaper mode's path: {@code off} measured 19-38 us per 20-word text
     * where it takes 5-7 once compiled, so the ratios came out low (20-word texts 2.3x for 4.1x,
     * 300-word texts at distance 6 1.6x for 2.3x).
     */
    @Option(names = "--rounds", description = "Batches of " + BATCH + " per mode; the first third warms up (default: ${DEFAULT-VALUE}).")
    int rounds = 600;

    @Option(names = "--words", description = "Words per text: 300 is long, 20 short (default: ${DEFAULT-VALUE}).")
    int words = 300;

    @Option(names = "--modes", split = ",", description = "off, on (the server's default candidate distance, 5) or on-kN (to N); "
            + "a mode ending in -simhash turns the short-text fingerprint off (default: ${DEFAULT-VALUE}).")
    List<String> modes = List.of("off", "on");

    @Option(names = "--corpus", description = "wide or small, as DedupTextBenchmark's (default: ${DEFAULT-VALUE}).")
    String corpus = "wide";

    @Override
    public Integer call() throws IOException {
        try (InProcessSimdex simdex = InProcessSimdex.start("dedup-cpu", (long) stored * 2 * modes.size())) {
            report(measure(simdex.stub()));
        }
        return 0;
    }

    /** Per mode, over its measured calls: text probes judged by sketches, sketches read, probes cut to the budget. */
    private final Map<String, long[]> sketchWork = new LinkedHashMap<>();

    private Map<String, List<Double>> measure(SimdexGrpc.SimdexBlockingStub stub) {
        TextCorpus texts = corpus.equals("small") ? new TextCorpus(42) : TextCorpus.wide(42);
        String[] loaded = new String[stored];
        for (int i = 0; i < stored; i++) {
            loaded[i] = texts.document(language(i), words);
        }
        for (String mode : modes) {
            stub.createCollection(CreateCollectionRequest.newBuilder().setName(mode).setSettings(CollectionSettings.newBuilder()
                    .setSketch(SketchSettings.newBuilder().setEnabled(!mode.equals("off")).setCandidateDistance(candidateDistance(mode)))
                    .setShortFingerprint(ShortFingerprintSettings.newBuilder().setEnabled(!mode.equals("off") && !mode.endsWith(SIMHASH))))
                    .build());
            for (int from = 0; from < stored; from += BATCH) {
                DedupRequest.Builder r = DedupRequest.newBuilder().setCollection(mode);
                for (int i = from; i < Math.min(stored, from + BATCH); i++) {
                    r.addDocuments(Document.newBuilder().setId("s" + i).setText(loaded[i]));
                }
                stub.dedup(r.build());
            }
        }
        String[] pool = new String[POOL];
        for (int i = 0; i < POOL; i++) {
            pool[i] = i % 2 == 0 ? texts.nearDuplicate(loaded[i % stored], language(i % stored), 1 + i % 20) : texts.document(language(i), words);
        }
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        Map<String, List<Double>> micros = new LinkedHashMap<>();
        for (int call = 0; call < rounds; call++) {
            for (String mode : modes) {
                DedupRequest.Builder r = DedupRequest.newBuilder().setCollection(mode);
                for (int i = 0; i < BATCH; i++) {
                    r.addDocuments(Document.newBuilder().setId("q" + call + "-" + i).setText(pool[(call * BATCH + i) % POOL]));
                }
                DedupRequest request = r.build();
                long[] before = {SketchReads.probes(), SketchReads.reads(), SketchReads.capped()};
                long start = threads.getCurrentThreadCpuTime();
                stub.dedup(request);
                long cpu = threads.getCurrentThreadCpuTime() - start;
                if (call >= rounds / 3) {
                    micros.computeIfAbsent(mode, m -> new ArrayList<>()).add(cpu / 1_000.0 / BATCH);
                    long[] work = sketchWork.computeIfAbsent(mode, m -> new long[3]);
                    work[0] += SketchReads.probes() - before[0];
                    work[1] += SketchReads.reads() - before[1];
                    work[2] += SketchReads.capped() - before[2];
                }
            }
        }
        return micros;
    }

    private void report(Map<String, List<Double>> micros) {
        System.out.printf("dedup-cpu: %d %s texts of %d words stored per collection, %d batches of %d measured per mode%n", stored, corpus, words,
                rounds - rounds / 3, BATCH);
        double off = Double.NaN;
        for (Map.Entry<String, List<Double>> e : micros.entrySet()) {
            List<Double> v = new ArrayList<>(e.getValue());
            Collections.sort(v);
            double median = v.get(v.size() / 2);
            off = e.getKey().equals("off") ? median : off;
            long[] work = sketchWork.get(e.getKey());
            System.out.printf("%-6s CPU us per text: median %.1f (quartiles %.1f, %.1f)%s%s%n", e.getKey(), median, v.get(v.size() / 4),
                    v.get(v.size() * 3 / 4), Double.isNaN(off) ? "" : String.format(", %.2fx off", median / off),
                    work == null || work[0] == 0 ? "" : String.format("; %.1f sketch reads per probe, %.1f%% of probes cut to the nearest %,d",
                            (double) work[1] / work[0], 100.0 * work[2] / work[0], VerificationBudget.FINGERPRINTS));
        }
    }

    /** The candidate distance of an {@code on-kN} mode: N; of {@code on}, 0 (the server's default, 5). */
    static int candidateDistance(String mode) {
        String m = mode.endsWith(SIMHASH) ? mode.substring(0, mode.length() - SIMHASH.length()) : mode;
        return m.startsWith("on-k") ? Integer.parseInt(m.substring("on-k".length())) : 0;
    }

    /** Ends a mode whose collection gives short texts their SimHash too. */
    private static final String SIMHASH = "-simhash";

    private static TextCorpus.Language language(int i) {
        return i % 2 == 0 ? TextCorpus.Language.ENGLISH : TextCorpus.Language.CHINESE;
    }
}
