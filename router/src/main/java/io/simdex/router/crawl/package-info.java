/**
 * A crawler's features beside the index: URL seen-sets with expiry, one per crawl job, and
 * the content index that gives an exact repeat of a stored text its recorded fingerprint.
 *
 * <p>Invariants. URL and content hashes are placed like every other key (by partition), so
 * both scale with the shards; an expired URL is absent to lookups before a sweep removes it.
 */
package io.simdex.router.crawl;
