package io.simdex.server.store;

import io.simdex.core.Partitions;
import io.simdex.fingerprint.BlockTables;

/**
 * How big one shard's part of a collection is expected to grow: sizes the Chronicle Maps when
 * the collection is created on the shard.
 *
 * @param expectedFingerprints fingerprints this shard's buckets will hold per table
 * @param expectedDocuments    ids (and distinct fingerprints) this shard will own
 * @param ownedBuckets         how many of the 4 x 65536 buckets this shard owns
 * @param averageIdBytes       typical id length in bytes
 */
public record StoreSizing(long expectedFingerprints, long expectedDocuments, int ownedBuckets, int averageIdBytes) {
    /**
     * Standard deviations above its mean share that a shard's documents are sized for. Keys are
     * placed by hash, so a shard's count is binomial; 4 deviations are exceeded once in 30,000
     * shards, and a shard past them only adds a generation ({@link GrowingMap}).
     */
    static final double DEVIATIONS = 4.0;

    /** Sizing for one of {@code shards} shards of a collection expected to hold {@code total} documents. */
    public static StoreSizing forShare(long total, int shards, int averageIdBytes) {
        return forReplicas(total, 1, shards, averageIdBytes);
    }

    /**
     * Sizing for one of {@code nodes} nodes that keep {@code replication} copies of a collection
     * expected to hold {@code documents}: a node holds R / N of the partitions, so of the ids and
     * of the buckets, while each bucket holds its block's share of all the documents however
     * many nodes there are: R x documents over N would lay a node's pages out for R times the
     * residues a bucket gets, and its base pages for 1 / R of the buckets it owns.
     */
    public static StoreSizing forReplicas(long documents, int replication, int nodes, int averageIdBytes) {
        return new StoreSizing(documents, documentsOfShare(documents, replication, nodes), bucketsOfShare(replication, nodes),
                averageIdBytes);
    }

    /**
     * The bucket keys one of {@code shards} shards is sized for: as {@link #documentsOfShare},
     * its share of the partitions' keys plus {@link #DEVIATIONS} standard deviations (bucket
     * keys are placed in partitions by hash too). The base pages' map is laid out for these
     * buckets' pages, so room above what a shard owns is file no page fills: a node of three
     * keeping two copies owns about 174,848 bucket keys and is sized for 175,814. A node that
     * comes to own more after a rebalance gets another generation of the map
     * ({@link BucketPages}). The embedded server's shards are
     * sized for the keys they own, which its fixed placement knows.
     */
    static int bucketsOfShare(int replication, int shards) {
        int buckets = BlockTables.TABLES * BlockTables.KEYS_PER_TABLE;
        return (int) Math.min(buckets, (long) Math.ceil(aboveShare(buckets, partitionsOfShare(replication, shards))));
    }

    /** A share {@code p} of {@code total} keys placed by hash, plus {@link #DEVIATIONS} standard deviations of that binomial count. */
    private static double aboveShare(long total, double p) {
        double mean = total * p;
        return mean + DEVIATIONS * Math.sqrt(mean * (1 - p));
    }

    /** The fraction of the partitions the fullest of {@code shards} shards keeping {@code replication} copies holds. */
    private static double partitionsOfShare(int replication, int shards) {
        long partitions = Math.min(Partitions.COUNT, (long) replication * ((Partitions.COUNT + shards - 1) / shards));
        return (double) partitions / Partitions.COUNT;
    }

    /**
     * The documents one of {@code shards} shards is sized for: its share of the partitions (the
     * most any shard gets when they do not divide evenly, {@code replication} times over) of
     * {@code total}, plus {@link #DEVIATIONS} standard deviations of that binomial count, over
     * {@link GrowingMap#PREPARE_AT}: a map makes its next generation's file (twice its size) once
     * that full, so a shard holding its share must stay below it. Sized 10% over the share, a
     * text collection of 200,000 short texts on 4 shards spent 71 B a document on sketches; sized
     * so (and with no entry checksums in the sketch file), 62.7 (loadtest dedup-cpu).
     */
    static long documentsOfShare(long total, int replication, int shards) {
        return (long) Math.ceil(aboveShare(total, partitionsOfShare(replication, shards)) / GrowingMap.PREPARE_AT);
    }

    /**
     * This sizing, raised where it is smaller than what a store of this shard holds:
     * {@code tableEntries} residues in its four tables' owned buckets and {@code documents} ids.
     * A new time generation is sized so from the fullest earlier one here, so that a collection
     * whose generations outgrow its expected size lays out the next generation for what they
     * hold: 10M documents in a store sized for 1M have chains of seven pages and answered
     * batched Query at 0.51-0.63x the rate of a store sized for them (README, "Buckets as
     * pages"), on 1.41x the disk. Never lowered: the configured size is the floor.
     * {@code ownedBuckets} is at least what the shard owns (its share plus four deviations), so
     * the mean a bucket holds is if anything underestimated.
     */
    public StoreSizing atLeast(long tableEntries, long documents) {
        long fingerprints = (long) Math.ceil((double) tableEntries * BlockTables.KEYS_PER_TABLE / ownedBuckets);
        long docs = (long) Math.ceil(documents / GrowingMap.PREPARE_AT);
        if (fingerprints <= expectedFingerprints && docs <= expectedDocuments) {
            return this;
        }
        return new StoreSizing(Math.max(expectedFingerprints, fingerprints), Math.max(expectedDocuments, docs), ownedBuckets,
                averageIdBytes);
    }

    TableGeometry geometry() {
        return TableGeometry.forExpected(expectedFingerprints, ownedBuckets);
    }
}
