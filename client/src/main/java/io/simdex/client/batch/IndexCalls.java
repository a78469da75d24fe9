package io.simdex.client.batch;

import io.simdex.client.DedupDecision;
import io.simdex.client.Doc;
import io.simdex.client.Match;
import io.simdex.client.Probe;
import io.simdex.client.ProbeMatches;
import io.simdex.client.SimdexClient;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.function.IntConsumer;
import java.util.function.IntFunction;
import java.util.stream.IntStream;

/**
 * The batch's calls to the index: Query in batches with up to {@code parallel} calls in
 * flight (reads commute), Dedup in batches one after another (the order of check-and-insert
 * is the decision order). Results reach the caller's thread in input order.
 */
final class IndexCalls {
    /** Most matches asked for per probe: enough to name the duplicates, bounded for the response size. */
    static final int MATCH_LIMIT = 8;

    /** Receives the matches of one queried fingerprint. */
    @FunctionalInterface
    interface MatchSink {
        void accept(int position, List<Match> matches);
    }

    private final SimdexClient client;
    private final String collection;
    private final int maxDistance;
    private final int batchSize;
    private final int parallel;
    private final ExecutorService workers;
    private long queryCalls;
    private long dedupCalls;

    IndexCalls(SimdexClient client, String collection, int maxDistance, int batchSize, int parallel,
               ExecutorService workers) {
        this.client = client;
        this.collection = collection;
        this.maxDistance = maxDistance;
        this.batchSize = batchSize;
        this.parallel = parallel;
        this.workers = workers;
    }

    /**
     * Queries {@code count} probes; {@code sink} gets each one's stored matches (nearest first,
     * at most {@link #MATCH_LIMIT}) by position, in order. A call's probes are made by
     * {@code probeAt} on the worker thread that sends it, so that only the calls in flight hold
     * texts; it must be safe from several threads.
     *
     * @param onBatch told the size of each finished batch (progress)
     */
    void query(int count, IntFunction<Probe> probeAt, MatchSink sink, IntConsumer onBatch) {
        ArrayDeque<Pending> inFlight = new ArrayDeque<>();
        for (int from = 0; from < count; from += batchSize) {
            while (inFlight.size() >= parallel) {
                deliver(inFlight.poll(), sink, onBatch);
            }
            int start = from;
            int end = Math.min(count, from + batchSize);
            inFlight.add(new Pending(from, workers.submit(() -> client.queryProbes(collection,
                    IntStream.range(start, end).mapToObj(probeAt).toList(), maxDistance, MATCH_LIMIT))));
            queryCalls++;
        }
        while (!inFlight.isEmpty()) {
            deliver(inFlight.poll(), sink, onBatch);
        }
    }

    /**
     * Dedup of {@code count} documents in order, a batch per call, each call's documents made
     * by {@code docAt} as it is sent; one decision per document.
     */
    List<DedupDecision> dedup(int count, IntFunction<Doc> docAt, IntConsumer onBatch) {
        List<DedupDecision> out = new ArrayList<>(count);
        for (int from = 0; from < count; from += batchSize) {
            List<Doc> batch = IntStream.range(from, Math.min(count, from + batchSize)).mapToObj(docAt).toList();
            out.addAll(client.dedup(collection, batch, maxDistance));
            dedupCalls++;
            onBatch.accept(batch.size());
        }
        return out;
    }

    long queryCalls() {
        return queryCalls;
    }

    long dedupCalls() {
        return dedupCalls;
    }

    private static void deliver(Pending p, MatchSink sink, IntConsumer onBatch) {
        List<ProbeMatches> results = Await.result(p.result);
        for (int i = 0; i < results.size(); i++) {
            sink.accept(p.from + i, results.get(i).matches());
        }
        onBatch.accept(results.size());
    }


    private record Pending(int from, Future<List<ProbeMatches>> result) {
    }
}
