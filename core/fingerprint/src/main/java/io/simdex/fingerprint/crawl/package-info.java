/**
 * Crawl-side exact deduplication that needs no index: the content hash that says two pages are
 * the same text, and Nutch's two exact rules (same URL: keep the newest fetch; same content:
 * keep the best score, then the shortest URL) over a batch's columns. Pure functions: the
 * result depends on the batch alone, and on input order only through the last tie-break.
 *
 * <h2>The rules</h2>
 * {@link io.simdex.fingerprint.crawl.NutchRules} applies, in Nutch's order
 * ({@code DeleteDuplicates}: a url-distinct job, then an md5-distinct job):
 * <ol>
 *   <li>{@link io.simdex.fingerprint.crawl.NutchRules#dropOlderFetches URL}: of documents with
 *       equal URL, the newest fetch wins;</li>
 *   <li>{@link io.simdex.fingerprint.crawl.NutchRules#dropDuplicateContent content}: of the
 *       survivors with equal {@link io.simdex.fingerprint.crawl.ContentHash}, the highest score
 *       wins, then the shortest URL.</li>
 * </ol>
 * Every remaining tie is broken by the priority order and, last, by input position. Each rule
 * sees only the documents earlier rules left undecided. Near-duplicates (SimHash within a
 * Hamming distance) are not this package's business: they need the block tables and the index,
 * and the client's {@code simdex dedup-batch} combines both.
 *
 * <h2>Order matters when URL and content are m:n</h2>
 * The Chinese write-up of Nutch's dedup that these rules follow says the URL-then-content
 * process "is reversible": content first, then URL, gives the same result. On its worked
 * example it does ({@code NutchRulesTest}), but not in general. When one URL has several
 * contents (a page with a timestamp, fetched twice) and one content has several URLs (a 404
 * page, a mirror), the two orders differ:
 * <ul>
 *   <li>URL first (Nutch, and {@code dedup-batch}) never keeps a stale fetch, but a URL whose
 *       newest content lost the content rule disappears, with its older, unique content;</li>
 *   <li>content first keeps every distinct content it can, but then a URL may be represented
 *       by an old fetch whose content the site no longer serves.</li>
 * </ul>
 * Either way the result has at most one document per URL and one per content. The write-up's
 * own variant (b.cn scored higher than a.cn) already shows the difference; the tests pin it.
 *
 * <h2>Names</h2>
 * The <em>winner</em> of a dropped document is the document that beat it under the rule that
 * dropped it; a winner may itself be dropped by a later rule. A document's <em>state</em> is
 * {@link io.simdex.fingerprint.crawl.NutchRules#UNDECIDED} until a rule (or the caller)
 * decides it, then the caller's code for why.
 */
package io.simdex.fingerprint.crawl;
