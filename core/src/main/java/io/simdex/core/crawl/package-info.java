/**
 * Crawl-side deduplication that needs no index: Nutch's two exact rules over a batch of
 * crawled records, and the content hash they key on.
 *
 * <h2>The rules</h2>
 * {@link io.simdex.core.crawl.NutchDedup} applies, in Nutch's order ({@code DeleteDuplicates}:
 * a url-distinct job, then an md5-distinct job):
 * <ol>
 *   <li>{@link io.simdex.core.crawl.Rule#URL}: of records with equal URL, the newest fetch wins;</li>
 *   <li>{@link io.simdex.core.crawl.Rule#CONTENT}: of the survivors with equal content, the
 *       highest score wins, then the shortest URL.</li>
 * </ol>
 * Every remaining tie is broken by a total order on the records' fields and, last, by input
 * position, so the result is a pure function of the batch. Near-duplicates (SimHash within a
 * Hamming distance) are not this package's business: they need the index, and the
 * {@code simdex dedup-batch} command combines both.
 *
 * <h2>Order matters when URL and content are m:n</h2>
 * The Chinese write-up of Nutch's dedup that this package follows (shared/seeds/001) says the
 * URL-then-content process "is reversible": content first, then URL, gives the same result. On
 * its worked example it does ({@code NutchDedupTest}), but not in general. When one URL has
 * several contents (a page with a timestamp, fetched twice) and one content has several URLs
 * (a 404 page, a mirror), the two orders differ:
 * <ul>
 *   <li>URL first (Nutch, the default here) never keeps a stale fetch, but a URL whose newest
 *       content lost the content rule disappears, with its older, unique content;</li>
 *   <li>content first keeps every distinct content it can, but then a URL may be represented
 *       by an old fetch whose content the site no longer serves.</li>
 * </ul>
 * Either way the result has at most one record per URL and one per content. The seed's own
 * variant (b.cn scored higher than a.cn) already shows the difference; the tests pin it.
 *
 * <h2>Names</h2>
 * The <em>winner</em> of a dropped record is the record that beat it under the rule that
 * dropped it; a winner may itself be dropped by a later rule, and its <em>survivor</em> is the
 * kept record reached by following winners.
 */
package io.simdex.core.crawl;
