package io.simdex.fingerprint.crawl;

/**
 * A crawl batch as {@link NutchRules} reads it: documents named by their position
 * {@code 0..size()-1}, each field read by position, so a million documents need no object each.
 * URL, fetch time, score and content are each optional per document.
 */
public interface CrawlColumns {
    /** Documents in the batch. */
    int size();

    /** Whether document {@code doc} has a URL; one without is never dropped by the URL rule. */
    boolean hasUrl(int doc);

    /** Length of document {@code doc}'s URL in UTF-8 bytes; called only when it has one. */
    int urlLength(int doc);

    /**
     * Order of two present URLs: negative, 0 or positive as {@code a}'s URL sorts before, equal
     * to or after {@code b}'s, in code point order (unsigned UTF-8 byte order is that order).
     */
    int compareUrls(int a, int b);

    /** When document {@code doc} was fetched, growing with time; {@link Long#MIN_VALUE} when absent. */
    long fetchTime(int doc);

    /** Document {@code doc}'s score, higher is better; 0 when absent. */
    double score(int doc);

    /** Whether document {@code doc} has content; one without is never dropped by the content rule. */
    boolean hasContent(int doc);

    /** {@link ContentHash#high()} of document {@code doc}'s content; called only when it has some. */
    long contentHigh(int doc);

    /** {@link ContentHash#low()} of document {@code doc}'s content; called only when it has some. */
    long contentLow(int doc);
}
