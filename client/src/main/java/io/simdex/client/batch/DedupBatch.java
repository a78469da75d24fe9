package io.simdex.client.batch;

import io.simdex.client.SimdexClient;
import java.io.IOException;
import java.io.Writer;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;

/**
 * One {@code dedup-batch} run as a library call: read and fingerprint the file, decide, write
 * the decisions. {@link DedupBatchCommand} is its command line; tests call it directly.
 *
 * @param collection  the collection to check against (and store into)
 * @param maxDistance k, 0..3
 * @param insert      store the kept documents with Dedup
 * @param batchSize   documents, texts or probes per RPC, 1..10,000
 * @param parallel    Fingerprint and Query calls in flight, 1..64
 */
record DedupBatch(String collection, int maxDistance, boolean insert, int batchSize, int parallel, boolean canonicalUrls) {
    /** URLs compared as given. */
    DedupBatch(String collection, int maxDistance, boolean insert, int batchSize, int parallel) {
        this(collection, maxDistance, insert, batchSize, parallel, false);
    }

    /** What a run did, for the summary line. */
    record Summary(long documents, long[] byReason, int rounds, long fingerprintCalls, long queryCalls,
                   long dedupCalls, double seconds) {
        long count(Reason r) {
            return byReason[r.ordinal()];
        }

        double docsPerSecond() {
            return seconds > 0 ? documents / seconds : 0;
        }
    }

    /** Runs over {@code input}, writing one decision line per document to {@code out}. */
    Summary run(SimdexClient client, Path input, Writer out, Progress progress) throws IOException {
        long start = System.nanoTime();
        ExecutorService workers = Executors.newFixedThreadPool(parallel, daemonThreads());
        try {
            BatchDocs docs = new BatchDocs();
            Map<Integer, String> textErrors = new HashMap<>();
            RemoteFingerprints texts = new RemoteFingerprints(client, collection, docs, workers, batchSize, parallel,
                    textErrors::put);
            progress.phase("read", BatchReader.countLines(input));
            BatchReader.read(input, docs, texts, canonicalUrls, () -> progress.step(1));

            boolean[] rejected = new boolean[docs.size()];
            textErrors.keySet().forEach(i -> rejected[i] = true);
            IndexCalls index = new IndexCalls(client, collection, maxDistance, batchSize, parallel, workers);
            BatchDeduplicator decided;
            try (BatchTexts again = new BatchTexts(input)) {
                decided = new BatchDeduplicator(docs, again, rejected, maxDistance, index, insert, progress);
                decided.run();
            }

            progress.phase("write", docs.size());
            long[] counts = new long[Reason.values().length];
            new DecisionWriter(docs, decided, textErrors, maxDistance).writeAll(out, counts, () -> progress.step(1));
            progress.close();
            return new Summary(docs.size(), counts, decided.rounds(), texts.calls(), index.queryCalls(),
                    index.dedupCalls(), (System.nanoTime() - start) / 1e9);
        } finally {
            workers.shutdownNow();
        }
    }

    private static ThreadFactory daemonThreads() {
        return r -> {
            Thread t = new Thread(r, "dedup-batch-rpc");
            t.setDaemon(true);
            return t;
        };
    }
}
