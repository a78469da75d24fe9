package io.simdex.client.batch;

import java.util.Arrays;
import java.util.function.IntPredicate;
import java.util.stream.IntStream;

/**
 * The priority order of a batch and Nutch's exact rules over its columns: the same rules as
 * {@code io.simdex.core.crawl.NutchDedup} (URL, then content), restated over arrays because
 * the client module does not depend on core and a million records should not be objects.
 *
 * <h2>Priority</h2>
 * Which of two documents wins when they are duplicates: the higher score (absent = 0), then
 * the one with a URL, then the shorter URL (UTF-8 bytes), then the smaller URL, then the
 * earlier input line. Without scores and URLs this is input order, so the first of a group of
 * near-duplicates is kept, as if the file were sent through Dedup line by line.
 *
 * <h2>Rules, in order</h2>
 * <ol>
 *   <li>URL: of documents with the same URL, the newest fetch time wins (absent = oldest),
 *       then priority; the others are {@link Reason#OLDER_FETCH_OF_URL}.</li>
 *   <li>Documents the server could not fingerprint are {@link Reason#NO_FINGERPRINT}.</li>
 *   <li>Content: of text documents with the same {@link ContentDigest}, the first in priority
 *       wins; the others are {@link Reason#EXACT_DUPLICATE}.</li>
 * </ol>
 * Each rule sees only the documents earlier rules left undecided; sorting makes each
 * O(n log n) with no per-document objects.
 */
final class CrawlRules {
    private CrawlRules() {
    }

    /** Document positions in priority order, best first. */
    static int[] priorityOrder(BatchDocs docs) {
        int[] order = new int[docs.size()];
        Arrays.setAll(order, i -> i);
        if (docs.anyPriorityField()) {
            IntSort.sort(order, (a, b) -> comparePriority(docs, a, b));
        }
        return order;
    }

    /**
     * Applies the three rules, setting {@code state} (a {@link Reason#code()}) and
     * {@code winner} for each document they drop; others stay 0.
     *
     * @param rank       each document's place in {@link #priorityOrder}
     * @param rejected   documents whose text the server rejected
     */
    static void apply(BatchDocs docs, int[] rank, boolean[] rejected, byte[] state, int[] winner) {
        int[] withUrl = select(docs.size(), i -> docs.hasUrl(i));
        IntSort.sort(withUrl, (a, b) -> {
            int c = docs.urls.compare(a, b);
            c = c != 0 ? c : Long.compare(docs.fetchTime(b), docs.fetchTime(a));
            return c != 0 ? c : Integer.compare(rank[a], rank[b]);
        });
        dropAllButFirst(withUrl, (a, b) -> docs.urls.compare(a, b) == 0, Reason.OLDER_FETCH_OF_URL, state, winner);

        for (int i = 0; i < docs.size(); i++) {
            if (state[i] == 0 && rejected[i]) {
                state[i] = Reason.NO_FINGERPRINT.code();
            }
        }

        int[] texts = select(docs.size(), i -> state[i] == 0 && docs.hasText(i));
        IntSort.sort(texts, (a, b) -> {
            int c = Long.compareUnsigned(docs.digestHigh(a), docs.digestHigh(b));
            c = c != 0 ? c : Long.compareUnsigned(docs.digestLow(a), docs.digestLow(b));
            return c != 0 ? c : Integer.compare(rank[a], rank[b]);
        });
        dropAllButFirst(texts, (a, b) -> docs.digestHigh(a) == docs.digestHigh(b) && docs.digestLow(a) == docs.digestLow(b),
                Reason.EXACT_DUPLICATE, state, winner);
    }

    private static int comparePriority(BatchDocs docs, int a, int b) {
        int c = Double.compare(docs.score(b), docs.score(a));
        if (c != 0) {
            return c;
        }
        boolean ua = docs.hasUrl(a);
        boolean ub = docs.hasUrl(b);
        if (ua != ub) {
            return ua ? -1 : 1;
        }
        if (ua) {
            c = Integer.compare(docs.urls.byteLength(a), docs.urls.byteLength(b));
            c = c != 0 ? c : docs.urls.compare(a, b);
        }
        return c != 0 ? c : Integer.compare(a, b);
    }

    /** In a sorted array, each run of equal keys keeps its first element and drops the rest. */
    private static void dropAllButFirst(int[] sorted, SameKey same, Reason reason, byte[] state, int[] winner) {
        int first = -1;
        for (int i : sorted) {
            if (first >= 0 && same.test(first, i)) {
                state[i] = reason.code();
                winner[i] = first;
            } else {
                first = i;
            }
        }
    }

    private static int[] select(int n, IntPredicate keep) {
        return IntStream.range(0, n).filter(keep).toArray();
    }

    @FunctionalInterface
    private interface SameKey {
        boolean test(int a, int b);
    }
}
