package io.simdex.router.shard;

import io.simdex.core.Partitions;
import io.simdex.fingerprint.BlockTables;

/**
 * Which shard group owns what. Every key (a (table, block) bucket, an id, a fingerprint) falls in
 * one of {@value Partitions#COUNT} virtual partitions ({@link Partitions}); each partition maps
 * to a group. A group is one shard on the embedded default and a replica set in a cluster
 * ({@code ReplicaSet}), so the index code is the same for both.
 */
public final class Placement {
    public static final int PARTITIONS = Partitions.COUNT;

    private final int[] groupOfPartition;
    private final int groups;
    /** Per group, its partitions as a bitmap (bit p % 8 of byte p / 8), as ProbeMany takes them. */
    private final byte[][] partitionBitmaps;

    private Placement(int[] groupOfPartition) {
        this.groupOfPartition = groupOfPartition;
        int max = 0;
        for (int s : groupOfPartition) {
            max = Math.max(max, s);
        }
        this.groups = max + 1;
        this.partitionBitmaps = new byte[groups][PARTITIONS / Byte.SIZE];
        for (int p = 0; p < PARTITIONS; p++) {
            partitionBitmaps[groupOfPartition[p]][p >>> 3] |= (byte) (1 << (p & 7));
        }
    }

    /** Partitions dealt round-robin over {@code shards} shards. */
    public static Placement roundRobin(int shards) {
        if (shards < 1 || shards > PARTITIONS) {
            throw new IllegalArgumentException("shards must be 1.." + PARTITIONS + ", was " + shards);
        }
        int[] map = new int[PARTITIONS];
        for (int p = 0; p < PARTITIONS; p++) {
            map[p] = p % shards;
        }
        return new Placement(map);
    }

    /** Partition p belongs to group {@code groupOfPartition[p]}; groups are numbered from 0 without gaps. */
    public static Placement of(int[] groupOfPartition) {
        if (groupOfPartition.length != PARTITIONS) {
            throw new IllegalArgumentException(PARTITIONS + " partitions expected, got " + groupOfPartition.length);
        }
        return new Placement(groupOfPartition.clone());
    }

    /** How many groups (shards, or replica sets) the partitions map to. */
    /**
     * A 64-bit digest of which group owns each partition: two placements that differ in any
     * partition all but certainly differ here (an export cursor carries it).
     */
    public long signature() {
        long h = 0x9E3779B97F4A7C15L * groups;
        for (int g : groupOfPartition) {
            h = (h ^ g) * 0xff51afd7ed558ccdL;
            h ^= h >>> 29;
        }
        return h;
    }

    public int shards() {
        return groups;
    }

    /** The partitions of {@code group}: bit p % 8 of byte p / 8 is set when it owns partition p. Not to be modified. */
    public byte[] partitionBitmap(int group) {
        return partitionBitmaps[group];
    }

    public int ownerOfBucket(int table, int block) {
        return groupOfPartition[Partitions.ofBucket(table, block)];
    }

    public int ownerOfFingerprint(long fp) {
        return groupOfPartition[Partitions.ofFingerprint(fp)];
    }

    public int ownerOfId(String id) {
        return groupOfPartition[Partitions.ofId(id)];
    }

    public int ownerOfContentHash(byte[] hash) {
        return groupOfPartition[Partitions.ofContentHash(hash)];
    }

    public int ownerOfUrlHash(byte[] hash) {
        return groupOfPartition[Partitions.ofUrlHash(hash)];
    }

    /** How many of the 4 x 65536 buckets {@code shard} owns. */
    public int bucketsOwnedBy(int shard) {
        int n = 0;
        for (int t = 0; t < BlockTables.TABLES; t++) {
            for (int b = 0; b < BlockTables.KEYS_PER_TABLE; b++) {
                n += ownerOfBucket(t, b) == shard ? 1 : 0;
            }
        }
        return n;
    }
}
