package io.simdex.server;

import io.simdex.core.Partitions;
import io.simdex.fingerprint.BlockTables;

import java.util.BitSet;
import java.util.Collection;

/**
 * A validated, non-empty set of partitions (core's {@link Partitions}), answering for each key
 * kind a shard stores whether the key belongs to the set.
 */
public final class PartitionSet {
    private final BitSet partitions;

    private PartitionSet(BitSet partitions) {
        this.partitions = partitions;
    }

    /** The set of {@code partitions}; IllegalArgumentException when empty or one is outside 0..4095. */
    public static PartitionSet of(int... partitions) {
        BitSet set = new BitSet(Partitions.COUNT);
        for (int p : partitions) {
            if (p < 0 || p >= Partitions.COUNT) {
                throw new IllegalArgumentException("partition " + Integer.toUnsignedString(p) + " outside 0.." + (Partitions.COUNT - 1));
            }
            set.set(p);
        }
        if (set.isEmpty()) {
            throw new IllegalArgumentException("no partitions given");
        }
        return new PartitionSet(set);
    }

    /** As {@link #of(int...)}, from a proto's repeated uint32 field. */
    public static PartitionSet of(Collection<Integer> partitions) {
        return of(partitions.stream().mapToInt(Integer::intValue).toArray());
    }

    /**
     * The set of a bitmap (bit p % 8 of byte p / 8: partition p), as routers send it;
     * IllegalArgumentException when it is not {@code Partitions.COUNT / 8} bytes or is empty.
     */
    public static PartitionSet ofBitmap(byte[] bitmap) {
        if (bitmap.length != Partitions.COUNT / Byte.SIZE) {
            throw new IllegalArgumentException("a partition bitmap of " + bitmap.length + " bytes, not " + Partitions.COUNT / Byte.SIZE);
        }
        BitSet set = BitSet.valueOf(bitmap);
        if (set.isEmpty()) {
            throw new IllegalArgumentException("no partitions given");
        }
        return new PartitionSet(set);
    }

    public boolean contains(int partition) {
        return partitions.get(partition);
    }

    public boolean containsBucket(int table, int block) {
        return partitions.get(Partitions.ofBucket(table, block));
    }

    /** Whether the bucket that holds {@code fp} in {@code table} is in the set. */
    public boolean containsBucketOf(int table, long fp) {
        return containsBucket(table, BlockTables.block(fp, table));
    }

    public boolean containsId(String id) {
        return partitions.get(Partitions.ofId(id));
    }

    public boolean containsFingerprint(long fp) {
        return partitions.get(Partitions.ofFingerprint(fp));
    }

    public boolean containsContentHash(byte[] hash) {
        return partitions.get(Partitions.ofContentHash(hash));
    }

    public boolean containsUrlHash(byte[] hash) {
        return partitions.get(Partitions.ofUrlHash(hash));
    }

    /** Calls {@code visitor} with every bucket (table, block) of the set: 4 x 65536 bit tests, no map reads. */
    void forEachBucket(BucketVisitor visitor) {
        for (int table = 0; table < BlockTables.TABLES; table++) {
            for (int block = 0; block < BlockTables.KEYS_PER_TABLE; block++) {
                if (containsBucket(table, block)) {
                    visitor.visit(table, block);
                }
            }
        }
    }

    interface BucketVisitor {
        void visit(int table, int block);
    }

    /** The partitions, ascending. */
    public int[] toArray() {
        return partitions.stream().toArray();
    }

    public int size() {
        return partitions.cardinality();
    }

    @Override
    public String toString() {
        return size() + " partitions";
    }
}
