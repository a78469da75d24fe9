package io.simdex.core.crawl;

/** One of Nutch's exact dedup rules; {@link NutchDedup} applies them in a given order. */
public enum Rule {
    /**
     * Of records with equal URL, keep one: the newest fetch time, then the highest score, then
     * the smallest content hash, then the earliest in the input. Others are dropped as
     * {@link Verdict.Reason#OLDER_FETCH_OF_URL}.
     */
    URL,
    /**
     * Of records with equal {@link ContentHash}, keep one: the highest score, then the shortest
     * URL (in chars), then the smallest URL ({@link String#compareTo}), then the newest fetch
     * time, then the earliest in the input. Others are dropped as
     * {@link Verdict.Reason#DUPLICATE_CONTENT}.
     */
    CONTENT
}
