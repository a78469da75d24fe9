/**
 * {@code simdex dedup-batch}: deduplicates a crawl batch within itself and against the index,
 * as a MapReduce join of a batch against the index would: the small side, the batch, becomes
 * in-memory block tables; the large side, the index, is only probed.
 *
 * <h2>Stages</h2>
 * <ol>
 *   <li>{@link io.simdex.client.batch.BatchReader} reads the JSONL file into columns
 *       ({@link io.simdex.client.batch.BatchDocs}); texts are fingerprinted by the server's
 *       Fingerprint RPC ({@link io.simdex.client.batch.RemoteFingerprints} says why) and
 *       hashed for exact identity ({@link io.simdex.fingerprint.crawl.ContentHash}).</li>
 *   <li>{@link io.simdex.client.batch.CrawlRules}: Nutch's exact rules, URL then content, and
 *       the priority order (score, then URL) that picks winners, from
 *       {@link io.simdex.fingerprint.crawl.NutchRules}.</li>
 *   <li>{@link io.simdex.client.batch.BatchDeduplicator}: near-duplicates in the batch through
 *       {@link io.simdex.client.batch.NearTables}, then the survivors against the index by
 *       Query (and Dedup with {@code --insert}), in rounds.</li>
 *   <li>{@link io.simdex.client.batch.DecisionWriter}: one decision line per input line, in
 *       input order.</li>
 * </ol>
 * The decisions equal sending the documents one at a time, in priority order, through Dedup
 * against the index as it was; {@code DedupBatchTest} checks that against a brute-force model.
 * Query and Dedup get each text document's text ({@link io.simdex.client.batch.BatchTexts}
 * reads it again from the file), so the server verifies it as the collection says (sketches,
 * short-text fingerprints) and stores what verification reads. Within the batch, documents
 * are compared by fingerprint within k: without {@code --insert}, two texts that only
 * verification would match are both kept (the command says so when it runs); with it, Dedup
 * of the kept ones in priority order decides them as the server would.
 *
 * <h2>Names</h2>
 * A <em>document</em> is an input line, named by its position {@code i} (input order); its
 * <em>rank</em> is its place in priority order. A <em>distinct fingerprint</em> {@code u} is a
 * position in the tables. <em>Kept</em> means decided "keep"; <em>stored</em> means Dedup
 * inserted it.
 *
 * <h2>Why simdex-fingerprint, not core</h2>
 * The block split, the content hash and the exact rules come from the dependency-free
 * {@code simdex-fingerprint} module, the one implementation the server side uses too; the
 * client does not depend on {@code simdex-core}, which brings HanLP's dictionaries for the
 * text fingerprinting that the server's Fingerprint RPC does here.
 */
package io.simdex.client.batch;
