/**
 * Where a key lives in the cluster: the placement hashes and the fixed set of virtual
 * partitions that a router places on nodes and a node streams when a partition moves. Stable
 * across versions and processes, since persisted data and every node's routing depend on them.
 *
 * <h2>Why partitions hash bucket keys</h2>
 * A probe at distance k <= 3 reads one bucket per block table; the four tables cover the
 * 64 bits in k + 1 = 4 blocks, so any fingerprint within 3 shares a block with the probe and
 * lies in one of those buckets (pigeonhole; Manku, Jain, Das Sarma, "Detecting Near-Duplicates
 * for Web Crawling", WWW 2007, section 3.1). A partition therefore owns whole buckets:
 * {@link io.simdex.core.Partitions#ofBucket} hashes the (table, block) pair from
 * {@code io.simdex.fingerprint.BlockTables}, so a probe within 3 touches at most four partitions, and
 * a table's 65536 buckets spread over all nodes rather than one table per node.
 *
 * <h2>What is elsewhere</h2>
 * The fingerprint bit math (Hamming distance, blocks, residues) and the content hash live in
 * the dependency-free {@code simdex-fingerprint} module, which the client shares; this module
 * adds what needs more than the JDK: {@link io.simdex.core.text} (SimHash from text, HanLP for
 * Chinese).
 */
package io.simdex.core;
