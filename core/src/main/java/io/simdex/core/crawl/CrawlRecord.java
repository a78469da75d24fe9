package io.simdex.core.crawl;

/**
 * A crawled page as the exact dedup rules see it.
 *
 * @param url       the page's URL, compared as a string (canonicalise it first if
 *                  {@code HTTP://A.cn/} and {@code http://a.cn/} should be one page); non-empty
 * @param fetchTime when it was fetched, in any unit that grows with time (milliseconds since
 *                  the epoch, say); only the order matters
 * @param score     the page's score (link rank, say): higher wins the content rule; finite
 * @param content   its content identity
 */
public record CrawlRecord(String url, long fetchTime, double score, ContentHash content) {
    /** @throws IllegalArgumentException on a null or empty url, a non-finite score or null content */
    public CrawlRecord {
        if (url == null || url.isEmpty()) {
            throw new IllegalArgumentException("url must be non-empty, was " + (url == null ? "null" : "\"\""));
        }
        if (!Double.isFinite(score)) {
            throw new IllegalArgumentException("score must be finite, was " + score + " for " + url);
        }
        if (content == null) {
            throw new IllegalArgumentException("content hash is null for " + url);
        }
    }

    /** A record whose content hash is computed from {@code text}. */
    public static CrawlRecord ofText(String url, long fetchTime, double score, String text) {
        return new CrawlRecord(url, fetchTime, score, ContentHash.of(text));
    }
}
