package io.simdex.loadtest.run;

import com.google.common.util.concurrent.ListenableFuture;
import io.grpc.ManagedChannel;
import io.simdex.core.Ids;
import io.simdex.loadtest.Json;
import io.simdex.loadtest.gen.Fingerprints;
import io.simdex.proto.v1.BulkLoadRequest;
import io.simdex.proto.v1.Document;
import io.simdex.proto.v1.InsertRequest;
import io.simdex.proto.v1.SimdexGrpc;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/** {@code load}: the stored set of a seed, over gRPC, in batches; reports documents per second. */
@Command(name = "load", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Load the stored set over gRPC and report documents/s.",
                "Stored fingerprints 0..count-1 of --seed (ids d0, d1, ...: what `gen` writes to stored.jsonl),",
                "through concurrent Insert calls or BulkLoad streams."})
public final class LoadCommand implements Callable<Integer> {
    /** The server's per-request limit. */
    private static final int MAX_BATCH = 10_000;
    private static final long LOAD_TIMEOUT_NANOS = TimeUnit.MINUTES.toNanos(30);

    /** How documents travel. */
    enum Via { insert, bulkload }

    @Mixin
    TargetOptions target;

    @Option(names = "--count", defaultValue = "1000000", description = "Documents (default: ${DEFAULT-VALUE}).")
    long count;

    @Option(names = "--first", defaultValue = "0", description = "Index of the first stored fingerprint (default: ${DEFAULT-VALUE}).")
    long first;

    @Option(names = "--seed", defaultValue = "42", description = "Seed of the stored set (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--batch", defaultValue = "5000", description = "Documents per Insert request or BulkLoad message (default: ${DEFAULT-VALUE}).")
    int batch;

    @Option(names = "--via", defaultValue = "insert", description = "insert (concurrent unary calls) or bulkload (streams) (default: ${DEFAULT-VALUE}).")
    Via via;

    @Option(names = "--concurrency", defaultValue = "2", description = "Insert calls in flight, or BulkLoad streams (default: ${DEFAULT-VALUE}).")
    int concurrency;

    @Option(names = "--collection", defaultValue = "", description = "Collection; empty means default.")
    String collection;

    @Option(names = "--id-bytes", defaultValue = "0",
            description = "Ids of this many bytes: d and the document's number, zero-padded (default: d and the number, 2-9 bytes up to 100M).")
    int idBytes;

    @Option(names = "--json", description = "Also write the JSON report here.")
    Path json;

    @Option(names = "--no-progress", description = "Do not draw the progress bar of documents sent (stderr).")
    boolean noProgress;

    /** Documents handed to gRPC; BulkLoad streams are flow-controlled, so this runs at most a few batches ahead of the server. */
    private ProgressBar sent;

    @Override
    public Integer call() throws Exception {
        if (count < 1 || batch < 1 || batch > MAX_BATCH || concurrency < 1 || idBytes < 0 || idBytes > Ids.MAX_BYTES) {
            throw new IllegalArgumentException("need --count >= 1, --batch 1.." + MAX_BATCH + ", --concurrency >= 1, --id-bytes 0.." + Ids.MAX_BYTES);
        }
        long batches = (count + batch - 1) / batch;
        Map<String, Object> report = new LinkedHashMap<>();
        try (Target t = target.open()) {
            ManagedChannel[] channels = t.channels(target.connections);
            report.put("target", t.name());
            report.put("via", via.name());
            report.put("documents", count);
            report.put("batch", batch);
            report.put("concurrency", concurrency);
            sent = noProgress ? null : new ProgressBarBuilder().setTaskName("load").setInitialMax(count).setUnit(" docs", 1)
                    .showSpeed().setSpeedUnit(ChronoUnit.SECONDS).setUpdateIntervalMillis(500).build();
            long start = System.nanoTime();
            if (via == Via.insert) {
                RunResult r = LoadLoop.closed(insertBatches(channels, batches), concurrency, new LoadLoop.Bound(batches, LOAD_TIMEOUT_NANOS));
                report.put("errors", r.errors());
                report.put("firstError", r.firstError());
                report.put("batchLatencyMicros", r.latencyMicros());
            } else {
                report.put("inserted", BulkLoadStreams.run(asyncStubs(channels), concurrency, batches, this::bulkBatch, LOAD_TIMEOUT_NANOS));
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            if (sent != null) {
                sent.close();
            }
            report.put("seconds", RunResult.round(seconds));
            report.put("docsPerSecond", RunResult.round(count / seconds));
            System.err.printf("load: %,d documents via %s in %.1f s: %,.0f docs/s%n", count, via, seconds, count / seconds);
        }
        Json.emit(report, json);
        Object errors = report.get("errors");
        return errors instanceof Long e && e > 0 ? 1 : 0;
    }

    private Workload insertBatches(ManagedChannel[] channels, long batches) {
        SimdexGrpc.SimdexFutureStub[] stubs = new SimdexGrpc.SimdexFutureStub[channels.length];
        for (int i = 0; i < channels.length; i++) {
            stubs[i] = SimdexGrpc.newFutureStub(channels[i]);
        }
        long deadline = target.timeout.toNanos();
        return new Workload() {
            @Override
            public ListenableFuture<?> call(long seq) {
                InsertRequest req = InsertRequest.newBuilder().setCollection(collection).addAllDocuments(documents(seq)).build();
                return stubs[(int) (seq % stubs.length)].withDeadlineAfter(deadline, TimeUnit.NANOSECONDS).insert(req);
            }

            @Override
            public int itemsPerCall() {
                return batch;
            }
        };
    }

    private BulkLoadRequest bulkBatch(long b) {
        return BulkLoadRequest.newBuilder().setCollection(collection).addAllDocuments(documents(b)).build();
    }

    /** Batch {@code b}: stored fingerprints first + b * batch onwards, the last batch cut at count. */
    private List<Document> documents(long b) {
        long from = first + b * batch;
        long to = Math.min(first + count, from + batch);
        Document[] docs = new Document[(int) (to - from)];
        for (long i = from; i < to; i++) {
            docs[(int) (i - from)] = Document.newBuilder().setId(Fingerprints.storedId(i, idBytes)).setFingerprint(Fingerprints.stored(seed, i)).build();
        }
        if (sent != null) {
            sent.stepBy(docs.length);
        }
        return List.of(docs);
    }

    private static SimdexGrpc.SimdexStub[] asyncStubs(ManagedChannel[] channels) {
        SimdexGrpc.SimdexStub[] stubs = new SimdexGrpc.SimdexStub[channels.length];
        for (int i = 0; i < channels.length; i++) {
            stubs[i] = SimdexGrpc.newStub(channels[i]);
        }
        return stubs;
    }
}
