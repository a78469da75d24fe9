/**
 * The bit math of 64-bit SimHash fingerprints that every side of simdex shares: Hamming
 * distance and the split of a fingerprint into four 16-bit blocks that the index's tables, the
 * router's and the client's in-memory batch tables, and the partition hash all key on. Pure
 * functions over {@code long}s, no dependencies; a block, residue or bucket key computed here
 * is the one every module computes, so shards, routers and clients agree on where a
 * fingerprint lives.
 *
 * <h2>Why k + 1 blocks find everything within k</h2>
 * Cut 64 bits into k + 1 disjoint blocks. Two fingerprints at Hamming distance at most k
 * differ in at most k bits, which fall into at most k blocks, so at least one block is equal in
 * both (pigeonhole). A table per block, grouping fingerprints by that block, therefore puts the
 * two in the same bucket of at least one table: scanning the probe's bucket in each of the
 * k + 1 tables has recall 1 at distance <= k, and comparing only within buckets avoids the
 * all-pairs scan (Manku, Jain, Das Sarma, "Detecting Near-Duplicates for Web Crawling", WWW
 * 2007, section 3.1). simdex uses k = 3: four blocks of 16 bits
 * ({@link io.simdex.fingerprint.BlockTables}); at distance 4 the guarantee ends, since four
 * flipped bits can land one per block.
 *
 * <h2>Names</h2>
 * A <em>block</em> is 16 bits of a fingerprint, block {@code t} being bits {@code 16t..16t+15};
 * table {@code t} keys by block {@code t}; the <em>residue</em> is the other 48 bits, packed
 * low. Test sources hold {@code LinearScan}, the brute-force reference every index path is
 * checked against, shipped to other modules' tests in this module's test-jar.
 */
package io.simdex.fingerprint;
