package io.simdex.client.batch;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.simdex.client.SimdexClient;
import io.simdex.fingerprint.crawl.ContentHash;

import java.security.MessageDigest;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Fingerprints texts with the Fingerprint RPC, a batch at a time, with up to {@code parallel}
 * calls in flight, and hashes their content for the exact rule on the same worker threads.
 *
 * <h2>Why the server fingerprints</h2>
 * A collection's text settings (tokenization, n-gram size, stop words, idf) live on the server
 * and are fixed when the collection is created; a fingerprint computed any other way is not
 * comparable with the stored ones. The Fingerprint RPC computes exactly what Insert would, so
 * the batch and the index always agree, and the client needs no HanLP (or core) at all. The
 * price is sending each text over the wire (again in Query and Dedup, read back from the file
 * by {@link BatchTexts}); texts are not kept after their batch returns.
 *
 * <h2>Bad texts</h2>
 * A text with no terms (only punctuation, only stop words) fails its whole RPC with
 * INVALID_ARGUMENT. The batch is then split in halves and retried, down to the single bad
 * texts, which are reported to {@code onError} with the server's message: one bad text among
 * n costs about 2 log2(n) extra calls. Any other failure ends the run.
 *
 * <p>Results are applied to {@link BatchDocs} on the caller's thread, in {@link #add} and
 * {@link #finish}, because the columns are not thread-safe. Not thread-safe itself.
 */
final class RemoteFingerprints {
    /** Most chars of text per call: keeps a request far below the 16 MiB message limit. */
    static final int MAX_CHARS_PER_CALL = 2 << 20;

    /** Receives the server's message for a text it could not fingerprint. */
    interface ErrorSink {
        void textRejected(int doc, String message);
    }

    private final SimdexClient client;
    private final String collection;
    private final BatchDocs docs;
    private final ExecutorService workers;
    private final int batchSize;
    private final int parallel;
    private final ErrorSink onError;
    private final ArrayDeque<Future<Result>> inFlight = new ArrayDeque<>();
    private final ThreadLocal<MessageDigest> sha256 = ThreadLocal.withInitial(ContentHash::newSha256);

    private List<Integer> pendingDocs = new ArrayList<>();
    private List<String> pendingTexts = new ArrayList<>();
    private long pendingChars;
    private final AtomicLong calls = new AtomicLong();

    RemoteFingerprints(SimdexClient client, String collection, BatchDocs docs, ExecutorService workers,
                       int batchSize, int parallel, ErrorSink onError) {
        this.client = client;
        this.collection = collection;
        this.docs = docs;
        this.workers = workers;
        this.batchSize = batchSize;
        this.parallel = parallel;
        this.onError = onError;
    }

    /** Queues document {@code doc}'s text; sends a batch when one is full, waiting if too many are in flight. */
    void add(int doc, String text) {
        pendingDocs.add(doc);
        pendingTexts.add(text);
        pendingChars += text.length();
        if (pendingDocs.size() >= batchSize || pendingChars >= MAX_CHARS_PER_CALL) {
            submit();
        }
    }

    /** Sends the last batch and applies every result. */
    void finish() {
        if (!pendingDocs.isEmpty()) {
            submit();
        }
        while (!inFlight.isEmpty()) {
            apply(Await.result(inFlight.poll()));
        }
    }

    /** Fingerprint calls made so far, retries of split batches included. */
    long calls() {
        return calls.get();
    }

    private void submit() {
        List<Integer> batchDocs = pendingDocs;
        List<String> batchTexts = pendingTexts;
        pendingDocs = new ArrayList<>();
        pendingTexts = new ArrayList<>();
        pendingChars = 0;
        while (inFlight.size() >= parallel) {
            apply(Await.result(inFlight.poll()));
        }
        inFlight.add(workers.submit(() -> fingerprint(batchDocs, batchTexts)));
        // Apply whatever is already done, so results do not pile up behind a slow head.
        while (!inFlight.isEmpty() && inFlight.peek().isDone()) {
            apply(Await.result(inFlight.poll()));
        }
    }

    /** Runs on a worker: digests, then fingerprints (splitting around bad texts). */
    private Result fingerprint(List<Integer> batchDocs, List<String> texts) {
        ContentHash[] digests = new ContentHash[texts.size()];
        for (int i = 0; i < texts.size(); i++) {
            digests[i] = ContentHash.of(texts.get(i), sha256.get());
        }
        long[] fps = new long[texts.size()];
        Map<Integer, String> errors = new HashMap<>();
        fingerprintRange(texts, 0, texts.size(), fps, errors);
        return new Result(batchDocs, fps, digests, errors);
    }

    private void fingerprintRange(List<String> texts, int from, int to, long[] out, Map<Integer, String> errors) {
        try {
            calls.incrementAndGet();
            List<Long> fps = client.fingerprint(collection, texts.subList(from, to));
            for (int i = from; i < to; i++) {
                out[i] = fps.get(i - from);
            }
        } catch (StatusRuntimeException e) {
            if (e.getStatus().getCode() != Status.Code.INVALID_ARGUMENT) {
                throw e;
            }
            if (to - from == 1) {
                errors.put(from, String.valueOf(e.getStatus().getDescription()));
                return;
            }
            int mid = (from + to) >>> 1;
            fingerprintRange(texts, from, mid, out, errors);
            fingerprintRange(texts, mid, to, out, errors);
        }
    }

    private void apply(Result r) {
        for (int i = 0; i < r.docs.size(); i++) {
            int doc = r.docs.get(i);
            ContentHash digest = r.digests[i];
            String error = r.errors.get(i);
            if (error == null) {
                docs.setTextResult(doc, r.fingerprints[i], digest.high(), digest.low());
            } else {
                docs.setDigest(doc, digest.high(), digest.low());
                onError.textRejected(doc, error);
            }
        }
    }


    private record Result(List<Integer> docs, long[] fingerprints, ContentHash[] digests, Map<Integer, String> errors) {
    }
}
