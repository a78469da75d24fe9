package io.simdex.loadtest.jmh;

import io.simdex.loadtest.Json;
import io.simdex.loadtest.gen.TextCorpus;
import io.simdex.proto.v1.CollectionSettings;
import io.simdex.proto.v1.CreateCollectionRequest;
import io.simdex.proto.v1.DedupRequest;
import io.simdex.proto.v1.DedupResponse;
import io.simdex.proto.v1.DedupResult;
import io.simdex.proto.v1.DeleteRequest;
import io.simdex.proto.v1.Document;
import io.simdex.proto.v1.Probe;
import io.simdex.proto.v1.QueryRequest;
import io.simdex.proto.v1.SimdexGrpc;
import io.simdex.proto.v1.ShortFingerprintSettings;
import io.simdex.proto.v1.SketchSettings;
import io.simdex.proto.v1.StatsRequest;
import io.simdex.router.index.SketchReads;
import io.simdex.router.index.VerificationBudget;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Stream;

/**
 * {@link DedupTextBenchmark}'s workload measured by the CPU time of the one thread that does
 * all of a Dedup's work: the embedded default's API over in-process gRPC with direct executors
 * (local shards answer in the calling thread), so neither other loads of the machine nor the
 * JVM's JIT and GC threads are charged to it, as they are to the process CPU time of
 * {@link CpuTimeProfiler} (on a loaded 2-core machine that moved one parameter from 975 to 172
 * us per text between iterations). Garbage collection of what a request allocates is not
 * counted. The modes' collections live in one embedded instance and take turns batch by batch,
 * so they share its JIT state and the machine's load. Each Dedup batch is preceded by a Query of
 * as many other texts, timed the same way.
 *
 * <p>Every batch's texts are new, as a crawler's pages mostly are: half near-duplicates of
 * stored texts (1-19 words replaced), half new documents, in both languages; after each Dedup
 * the documents it stored are deleted (untimed), so each collection holds its {@code --stored}
 * texts throughout. With {@code --repeat} the batches cycle through a pool of {@value #POOL}
 * texts instead, as a re-crawl sends unchanged pages again: from the pool's second pass on, a
 * text its collection stored takes its fingerprint from the content index, which skips SimHash.
 * A collection that finds few near-duplicates stores most of the pool, so it answers mostly
 * from the content index: {@code off} takes 5-9 us per short text so, where new ones take 16-24.
 *
 * <p>Each mode's collection files are weighed once its {@code --stored} texts are loaded,
 * before the batches: the bytes its directories hold on the four shards per document it
 * stores, and those of its sketch verification (short texts, sketches) beyond {@code off}'s.
 */
@Command(name = "dedup-cpu", mixinStandardHelpOptions = true,
        description = "CPU time per text of Dedup and Query with sketch verification off and on, in the calling thread; bytes per document.")
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

    @Option(names = "--modes", split = ",", description = "off, on (the server's defaults: candidates to 5, to 7 for texts of at most 150 words) or on-kN (to N at every length); "
            + "a mode ending in -simhash turns the short-text fingerprint off (default: ${DEFAULT-VALUE}).")
    List<String> modes = List.of("off", "on");

    @Option(names = "--corpus", description = "wide or small, as DedupTextBenchmark's (default: ${DEFAULT-VALUE}).")
    String corpus = "wide";

    /**
     * What each collection is sized for. A collection holds at most {@code --stored} plus a batch
     * of documents ({@code --stored} plus {@value #POOL} with {@code --repeat}), so {@code --stored}
     * sizes its files for what it holds, which bytes per document need; the default leaves room
     * to spare, as the CPU figures in loadtest/quality/README.md were measured.
     */
    @Option(names = "--expected", description = "Documents each collection is sized for (default: stored x 2 x modes).")
    long expected;

    @Option(names = "--repeat", description = "Cycle the batches through a pool of " + POOL + " texts, as a re-crawl sends pages again, "
            + "instead of new texts in every batch.")
    boolean repeat;

    @Option(names = "--json", description = "Also write the results as JSON here.")
    Path json;

    @Override
    public Integer call() throws IOException {
        long sizedFor = expected > 0 ? expected : (long) stored * 2 * modes.size();
        try (InProcessSimdex simdex = InProcessSimdex.start("dedup-cpu", sizedFor)) {
            measure(simdex.stub(), simdex.dir());
            Result result = result(simdex, sizedFor);
            print(result);
            if (json != null) {
                Json.emit(result, json);
            }
        }
        return 0;
    }

    /** Per mode, over its measured calls: text probes judged by sketches, sketches read, probes cut to the budget. */
    private final Map<String, long[]> sketchWork = new LinkedHashMap<>();
    private final Map<String, List<Double>> dedupMicros = new LinkedHashMap<>();
    private final Map<String, List<Double>> queryMicros = new LinkedHashMap<>();
    /** Per mode, once its stored texts are loaded: its documents, and the bytes of its files. */
    private final Map<String, Long> loadedDocuments = new LinkedHashMap<>();
    private final Map<String, Footprint> loadedBytes = new LinkedHashMap<>();

    private void measure(SimdexGrpc.SimdexBlockingStub stub, Path dataDir) {
        TextCorpus texts = corpus.equals("small") ? new TextCorpus(42) : TextCorpus.wide(42);
        String[] loaded = new String[stored];
        for (int i = 0; i < stored; i++) {
            loaded[i] = texts.document(language(i), words);
        }
        for (String mode : modes) {
            stub.createCollection(CreateCollectionRequest.newBuilder().setName(mode).setSettings(CollectionSettings.newBuilder()
                    .setSketch(sketchSettings(mode))
                    .setShortFingerprint(ShortFingerprintSettings.newBuilder().setEnabled(!mode.equals("off") && !mode.endsWith(SIMHASH))))
                    .build());
            for (int from = 0; from < stored; from += BATCH) {
                DedupRequest.Builder r = DedupRequest.newBuilder().setCollection(mode);
                for (int i = from; i < Math.min(stored, from + BATCH); i++) {
                    r.addDocuments(Document.newBuilder().setId("s" + i).setText(loaded[i]));
                }
                stub.dedup(r.build());
            }
            loadedDocuments.put(mode, stub.stats(StatsRequest.newBuilder().setCollection(mode).build()).getDocuments());
            loadedBytes.put(mode, footprint(dataDir, mode));
        }
        String[] pool = new String[POOL];
        for (int i = 0; repeat && i < POOL; i++) {
            pool[i] = i % 2 == 0 ? texts.nearDuplicate(loaded[i % stored], language(i % stored), 1 + i % 20) : texts.document(language(i), words);
        }
        String[] dedupTexts = new String[BATCH];
        String[] queryTexts = new String[BATCH];
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        for (int call = 0; call < rounds; call++) {
            boolean measured = call >= rounds / 3;
            for (int i = 0; i < BATCH; i++) {
                int j = call * BATCH + i;
                if (repeat) {
                    // The Query asks for other texts than the Dedup's (half the pool away), so
                    // it does not warm the buckets the Dedup then reads.
                    dedupTexts[i] = pool[j % POOL];
                    queryTexts[i] = pool[(j + POOL / 2) % POOL];
                } else {
                    // Near-duplicates of the Query's sources lie half the stored texts away from the Dedup's.
                    dedupTexts[i] = newText(texts, loaded, j, 0);
                    queryTexts[i] = newText(texts, loaded, j, stored / 2);
                }
            }
            for (String mode : modes) {
                QueryRequest.Builder q = QueryRequest.newBuilder().setCollection(mode);
                DedupRequest.Builder r = DedupRequest.newBuilder().setCollection(mode);
                for (int i = 0; i < BATCH; i++) {
                    q.addProbes(Probe.newBuilder().setText(queryTexts[i]));
                    r.addDocuments(Document.newBuilder().setId("q" + call + "-" + i).setText(dedupTexts[i]));
                }
                QueryRequest query = q.build();
                DedupRequest request = r.build();
                long start = threads.getCurrentThreadCpuTime();
                stub.query(query);
                long queryCpu = threads.getCurrentThreadCpuTime() - start;
                long[] before = {SketchReads.probes(), SketchReads.reads(), SketchReads.capped()};
                start = threads.getCurrentThreadCpuTime();
                DedupResponse answer = stub.dedup(request);
                long cpu = threads.getCurrentThreadCpuTime() - start;
                if (!repeat) {
                    DeleteRequest.Builder inserted = DeleteRequest.newBuilder().setCollection(mode);
                    answer.getResultsList().stream().filter(DedupResult::getInserted).forEach(d -> inserted.addIds(d.getId()));
                    if (inserted.getIdsCount() > 0) {
                        stub.delete(inserted.build());
                    }
                }
                if (measured) {
                    queryMicros.computeIfAbsent(mode, m -> new ArrayList<>()).add(queryCpu / 1_000.0 / BATCH);
                    dedupMicros.computeIfAbsent(mode, m -> new ArrayList<>()).add(cpu / 1_000.0 / BATCH);
                    long[] work = sketchWork.computeIfAbsent(mode, m -> new long[3]);
                    work[0] += SketchReads.probes() - before[0];
                    work[1] += SketchReads.reads() - before[1];
                    work[2] += SketchReads.capped() - before[2];
                }
            }
        }
    }

    /**
     * The {@code j}th new text: for even j a near-duplicate of stored text {@code j / 2 + offset}
     * (1-19 words replaced), for odd j a new document; both alternate the languages.
     */
    String newText(TextCorpus texts, String[] loaded, int j, int offset) {
        int k = j / 2;
        if (j % 2 == 0) {
            int source = (k + offset) % loaded.length;
            return texts.nearDuplicate(loaded[source], language(source), 1 + j % 20);
        }
        return texts.document(language(k), words);
    }

    private Result result(InProcessSimdex simdex, long sizedFor) {
        List<ModeResult> out = new ArrayList<>();
        Quartiles offDedup = null;
        Quartiles offQuery = null;
        double offBytes = Double.NaN;
        for (String mode : modes) {
            Quartiles dedup = Quartiles.of(dedupMicros.get(mode));
            Quartiles query = Quartiles.of(queryMicros.get(mode));
            long documents = loadedDocuments.get(mode);
            Footprint bytes = loadedBytes.get(mode);
            double verificationPerDocument = (double) bytes.verification() / documents;
            if (mode.equals("off")) {
                offDedup = dedup;
                offQuery = query;
                offBytes = verificationPerDocument;
            }
            long[] work = sketchWork.get(mode);
            out.add(new ModeResult(mode, dedup, offDedup == null ? Double.NaN : dedup.median() / offDedup.median(), query,
                    offQuery == null ? Double.NaN : query.median() / offQuery.median(), documents, bytes.all(),
                    (double) bytes.all() / documents, verificationPerDocument - offBytes,
                    work[0] == 0 ? 0 : (double) work[1] / work[0], work[0] == 0 ? 0 : 100.0 * work[2] / work[0]));
        }
        return new Result(stored, corpus, words, repeat ? "repeat" : "new", rounds - rounds / 3, BATCH, sizedFor, out);
    }

    /** The files of a sketch verification keeps: short texts, and sketches by id and by fingerprint (TextStore). */
    private static final List<String> VERIFICATION_FILES = List.of("texts-", "sketches-", "fpsketches-");

    /**
     * Bytes of the files of {@code collection}'s directories on every shard, as {@code du -sb}
     * counts them (apparent sizes): all of them, and those of the sketch verification.
     */
    static Footprint footprint(Path dataDir, String collection) {
        try (Stream<Path> shards = Files.list(dataDir)) {
            long all = 0;
            long verification = 0;
            for (Path shard : shards.filter(p -> p.getFileName().toString().startsWith("shard-")).toList()) {
                Path dir = shard.resolve(collection);
                if (!Files.isDirectory(dir)) {
                    continue;
                }
                try (Stream<Path> files = Files.walk(dir)) {
                    for (Path f : files.filter(Files::isRegularFile).toList()) {
                        long size = Files.size(f);
                        String name = f.getFileName().toString();
                        all += size;
                        verification += VERIFICATION_FILES.stream().anyMatch(name::startsWith) ? size : 0;
                    }
                }
            }
            return new Footprint(all, verification);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot weigh " + collection + " under " + dataDir, e);
        }
    }

    /** A collection's file bytes: all, and the sketch verification's. */
    record Footprint(long all, long verification) {
    }

    private void print(Result r) {
        System.out.printf("dedup-cpu: %d %s texts of %d words stored per collection (sized for %,d), %d batches of %d %s texts measured per mode%n",
                r.stored(), r.corpus(), r.words(), r.sizedFor(), r.measuredBatches(), r.batch(), r.texts().equals("new") ? "new" : "repeated");
        for (ModeResult m : r.modes()) {
            System.out.printf("%-6s CPU us per text: Dedup median %.1f (quartiles %.1f, %.1f)%s; Query median %.1f (quartiles %.1f, %.1f)%s%s%n",
                    m.mode(), m.dedup().median(), m.dedup().lower(), m.dedup().upper(), ratio(m.dedupRatio()),
                    m.query().median(), m.query().lower(), m.query().upper(), ratio(m.queryRatio()),
                    m.sketchReadsPerProbe() == 0 ? "" : String.format("; %.1f sketch reads per probe, %.1f%% of probes cut to the nearest %,d",
                            m.sketchReadsPerProbe(), m.cappedPercent(), VerificationBudget.FINGERPRINTS));
            System.out.printf("%-6s once loaded, %,d documents, %,d bytes on the shards: %.1f B per document%s%n", m.mode(), m.documents(), m.bytes(),
                    m.bytesPerDocument(), Double.isNaN(m.extraBytesPerDocument()) || m.mode().equals("off") ? ""
                            : String.format(", sketch verification %.1f B beyond off's", m.extraBytesPerDocument()));
        }
    }

    private static String ratio(double r) {
        return Double.isNaN(r) ? "" : String.format(", %.2fx off", r);
    }

    /** The median and quartiles of a mode's measured batches, CPU us per text. */
    record Quartiles(double lower, double median, double upper) {
        static Quartiles of(List<Double> values) {
            List<Double> v = new ArrayList<>(values);
            Collections.sort(v);
            return new Quartiles(v.get(v.size() / 4), v.get(v.size() / 2), v.get(v.size() * 3 / 4));
        }
    }

    /**
     * One mode's figures. Ratios are against {@code off} when it is measured before this mode (NaN
     * otherwise); so are the extra bytes: the sketch verification's files per document beyond off's.
     * Documents and bytes are those once the stored texts were loaded.
     */
    record ModeResult(String mode, Quartiles dedup, double dedupRatio, Quartiles query, double queryRatio, long documents, long bytes,
                      double bytesPerDocument, double extraBytesPerDocument, double sketchReadsPerProbe, double cappedPercent) {
    }

    /** What {@code --json} writes; {@code texts} is "new" or "repeat" ({@code --repeat}). */
    record Result(int stored, String corpus, int words, String texts, int measuredBatches, int batch, long sizedFor, List<ModeResult> modes) {
    }

    /**
     * A mode's sketch settings: off, the server's defaults ({@code on}), or candidates to N at
     * every length ({@code on-kN}: the wide radius of short texts set to N too).
     */
    static SketchSettings sketchSettings(String mode) {
        int k = candidateDistance(mode);
        return SketchSettings.newBuilder().setEnabled(!mode.equals("off")).setCandidateDistance(k).setWideCandidateDistance(k).build();
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
