package io.simdex.client.batch;

import io.simdex.fingerprint.crawl.NutchRules;

/**
 * The exact stage of {@code dedup-batch}: Nutch's rules ({@link NutchRules}, whose comment
 * gives the priority order and the tie-breaks) with the client's own step between them.
 *
 * <h2>Rules, in order</h2>
 * <ol>
 *   <li>URL: of documents with the same URL, the newest fetch time wins (absent = oldest),
 *       then priority; the others are {@link Reason#OLDER_FETCH_OF_URL}.</li>
 *   <li>Documents the server could not fingerprint are {@link Reason#NO_FINGERPRINT}.</li>
 *   <li>Content: of text documents with the same content hash, the first in priority wins; the
 *       others are {@link Reason#EXACT_DUPLICATE}.</li>
 * </ol>
 */
final class CrawlRules {
    private CrawlRules() {
    }

    /** Document positions in priority order, best first. */
    static int[] priorityOrder(BatchDocs docs) {
        return NutchRules.priorityOrder(docs);
    }

    /**
     * Applies the three rules, setting {@code state} (a {@link Reason#code()}) and
     * {@code winner} for each document they drop; others stay 0.
     *
     * @param rank       each document's place in {@link #priorityOrder}
     * @param rejected   documents whose text the server rejected
     */
    static void apply(BatchDocs docs, int[] rank, boolean[] rejected, byte[] state, int[] winner) {
        NutchRules.dropOlderFetches(docs, rank, state, winner, Reason.OLDER_FETCH_OF_URL.code());
        for (int i = 0; i < docs.size(); i++) {
            if (state[i] == NutchRules.UNDECIDED && rejected[i]) {
                state[i] = Reason.NO_FINGERPRINT.code();
            }
        }
        NutchRules.dropDuplicateContent(docs, rank, state, winner, Reason.EXACT_DUPLICATE.code());
    }
}
