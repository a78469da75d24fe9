package io.simdex.loadtest.jmh;

import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.simdex.loadtest.gen.TextCorpus;
import io.simdex.loadtest.store.StoreFixture;
import io.simdex.proto.v1.CollectionSettings;
import io.simdex.proto.v1.CreateCollectionRequest;
import io.simdex.proto.v1.DedupRequest;
import io.simdex.proto.v1.DedupResponse;
import io.simdex.proto.v1.Document;
import io.simdex.proto.v1.SimdexGrpc;
import io.simdex.router.EmbeddedSimdex;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
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
import java.util.concurrent.atomic.AtomicLong;

/**
 * Dedup of texts through the public gRPC API of the embedded default (4 shards), with sketch
 * verification off (SimHash within 3 only), on ({@code --sketch}: candidates to distance 7, a
 * 38-byte sketch kept per fingerprint) and on with candidates to distance N only ({@code on-kN}; at
 * {@code on-k3} the sketch's storage and check without the neighbour probes and their locks,
 * at {@code on-k5} and {@code on-k6} the probes with fewer candidates): microseconds per
 * text, the cost the sketch adds to Dedup. Each call sends {@value #BATCH} texts, half of them near-duplicates of stored
 * ones, against {@code stored} texts loaded first. The calls cycle through a pool of
 * {@value #POOL} texts, as {@code dedup-cpu --repeat} does, so most texts are repeats, which a
 * collection that stored them fingerprints from its content index; {@code dedup-cpu} without
 * it sends new texts in every batch.
 *
 * <p>Two corpora ({@link TextCorpus}): {@code wide} (the default), the built-in idf tables'
 * vocabularies with a topic per document, where a text has about 10 unrelated texts within
 * distance 7 of 3,000 stored, as English man pages have about 13; and {@code small}, fixed
 * vocabularies of 140 and 90 words, where it has about 43 of 3,000 (about 290 of 20,000), each
 * of which {@code on} resolves and verifies: a worst case for the wider radius. On a shared
 * machine compare the parameters by {@code -prof io.simdex.loadtest.jmh.CpuTimeProfiler} (CPU
 * per text) rather than by wall time; on a loaded one, by {@code simdex-loadtest dedup-cpu}
 * ({@link DedupCpuCommand}: the CPU time of the thread doing the work).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 3)
@Measurement(iterations = 4, time = 3)
@Fork(1)
public class DedupTextBenchmark {
    private static final int BATCH = 100;
    private static final int POOL = 4_000;

    @Param({"off", "on", "on-k3"})
    String sketch;

    @Param({"20000"})
    int stored;

    /** Words of each text: 300 (long texts, SimHash), 20 (short ones, a MinHash fingerprint in a new collection). */
    @Param({"300"})
    int words;

    @Param({"wide"})
    String corpus;

    private Path dir;
    private EmbeddedSimdex simdex;
    private ManagedChannel channel;
    private SimdexGrpc.SimdexBlockingStub stub;
    private String[] texts;
    /** Calls made so far, by every benchmark thread ({@code -t}). */
    private final AtomicLong calls = new AtomicLong();

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        dir = Files.createTempDirectory("simdex-jmh-dedup");
        simdex = EmbeddedSimdex.start(dir, 4, "127.0.0.1", 0, stored * 4L);
        channel = ManagedChannelBuilder.forAddress("127.0.0.1", simdex.port()).usePlaintext().build();
        stub = SimdexGrpc.newBlockingStub(channel);
        stub.createCollection(CreateCollectionRequest.newBuilder().setName("c").setSettings(CollectionSettings.newBuilder()
                .setSketch(DedupCpuCommand.sketchSettings(sketch)))
                .build());
        TextCorpus corpus = this.corpus.equals("small") ? new TextCorpus(42) : TextCorpus.wide(42);
        String[] loaded = new String[stored];
        for (int from = 0; from < stored; from += BATCH) {
            DedupRequest.Builder r = DedupRequest.newBuilder().setCollection("c");
            for (int i = from; i < Math.min(stored, from + BATCH); i++) {
                loaded[i] = corpus.document(language(i), words);
                r.addDocuments(Document.newBuilder().setId("s" + i).setText(loaded[i]));
            }
            stub.dedup(r.build());
        }
        texts = new String[POOL];
        for (int i = 0; i < POOL; i++) {
            texts[i] = i % 2 == 0 ? corpus.nearDuplicate(loaded[i % stored], language(i % stored), 1 + i % 20)
                    : corpus.document(language(i), words);
        }
    }

    private static TextCorpus.Language language(int i) {
        return i % 2 == 0 ? TextCorpus.Language.ENGLISH : TextCorpus.Language.CHINESE;
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        channel.shutdownNow();
        simdex.close();
        StoreFixture.delete(dir);
    }

    /** One Dedup call of {@value #BATCH} texts; the score is per text. */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public DedupResponse dedup() {
        long call = calls.getAndIncrement();
        DedupRequest.Builder r = DedupRequest.newBuilder().setCollection("c");
        for (int i = 0; i < BATCH; i++) {
            int t = (int) ((call * BATCH + i) % POOL);
            // Ids are new on every call, so each call decides afresh (no retry of a stored id).
            r.addDocuments(Document.newBuilder().setId("q" + call + "-" + i).setText(texts[t]));
        }
        return stub.dedup(r.build());
    }
}
