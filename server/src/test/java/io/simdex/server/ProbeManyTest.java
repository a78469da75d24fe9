package io.simdex.server;

import io.simdex.fingerprint.BlockTables;
import io.simdex.proto.v1.FingerprintList;
import io.simdex.proto.v1.ShardProbeManyRequest;
import io.simdex.proto.v1.ShardProbeManyResponse;
import io.simdex.proto.v1.ShardProbePart;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ProbeMany over a real socket against a linear scan in two generations: parts of many
 * fingerprints, neighbour buckets, an empty part and shared fingerprints, whose buckets a node
 * brings in a window at a time across parts ({@link ShardNode#PREFETCH_WINDOW}), each answering
 * what probing its bucket alone does.
 */
class ProbeManyTest {
    private static final String C = "c";
    private static final long[] GENERATIONS = {0, 1};

    @TempDir
    Path tmp;
    private TestShard shard;
    private final List<long[]> stored = new ArrayList<>();
    private long[] probes;

    @BeforeEach
    void store() {
        shard = new TestShard(tmp.resolve("node"), NodeState.standalone());
        SplittableRandom rnd = new SplittableRandom(20261129);
        probes = new long[150];
        List<Long> fps = new ArrayList<>();
        for (int i = 0; i < probes.length; i++) {
            probes[i] = rnd.nextLong();
            // Neighbours at 0..5 bits, the flips anywhere: some share a bucket of the probe, some not.
            for (int d = 0; d <= 5; d++) {
                fps.add(flip(probes[i], d, rnd));
            }
        }
        for (int i = 0; i < 4000; i++) {
            fps.add(rnd.nextLong());
        }
        for (int g = 0; g < GENERATIONS.length; g++) {
            long[] generation = fps.stream().filter(fp -> rnd.nextBoolean()).mapToLong(Long::longValue).toArray();
            stored.add(generation);
            for (int t = 0; t < BlockTables.TABLES; t++) {
                shard.node.bucketAdd(C, GENERATIONS[g], t, generation);
            }
        }
    }

    @AfterEach
    void close() throws InterruptedException {
        shard.close();
    }

    @Test
    void partsOfManyFingerprints_andNeighbourBuckets_matchLinearScan() {
        // As a router sends a batch: a part per table within 3, then a part per table and
        // neighbour bucket (one block bit flipped) within 4, and an empty part among them.
        List<ShardProbePart> parts = new ArrayList<>();
        for (int t = 0; t < BlockTables.TABLES; t++) {
            parts.add(part(t, probes, 3));
        }
        parts.add(part(2, new long[0], 3));
        for (int t = 0; t < BlockTables.TABLES; t++) {
            for (int bit = 0; bit < 3; bit++) {
                long mask = flipInBlock(t, bit);
                long[] shifted = new long[probes.length];
                for (int i = 0; i < probes.length; i++) {
                    shifted[i] = probes[i] ^ mask;
                }
                parts.add(part(t, shifted, 4));
            }
        }
        ShardProbeManyResponse answer = shard.stub().probeMany(ShardProbeManyRequest.newBuilder().setCollection(C)
                .addAllGenerations(List.of(0L, 1L)).addAllParts(parts).build());

        assertEquals(parts.size(), answer.getPartsCount());
        int matches = 0;
        for (int p = 0; p < parts.size(); p++) {
            ShardProbePart part = parts.get(p);
            assertEquals(part.getFingerprintsCount(), answer.getParts(p).getMatchesCount());
            for (int i = 0; i < part.getFingerprintsCount(); i++) {
                long fp = part.getFingerprints(i);
                TreeSet<String> expected = linearScan(part.getTable(), fp, part.getMaxDistance());
                assertEquals(expected, found(answer.getParts(p).getMatches(i)), "part " + p + ", fingerprint " + i);
                // The same bucket probed alone, without a window.
                ShardProbeManyResponse alone = shard.stub().probeMany(ShardProbeManyRequest.newBuilder().setCollection(C)
                        .addAllGenerations(List.of(0L, 1L)).addParts(part(part.getTable(), new long[] {fp}, part.getMaxDistance())).build());
                assertEquals(expected, found(alone.getParts(0).getMatches(0)));
                matches += expected.size();
            }
        }
        // A probe's stored copies (distance 0) alone are 4 matches on average: one a table.
        assertTrue(matches > probes.length, "matches " + matches);
    }

    @Test
    void sharedFingerprints_everyPartProbesThemInItsTable() {
        List<ShardProbePart> parts = new ArrayList<>();
        parts.add(part(0, probes, 3));
        for (int t = 1; t < BlockTables.TABLES; t++) {
            parts.add(ShardProbePart.newBuilder().setTable(t).setMaxDistance(3).build());
        }
        ShardProbeManyResponse answer = shard.stub().probeMany(ShardProbeManyRequest.newBuilder().setCollection(C)
                .addAllGenerations(List.of(0L, 1L)).setSharedFingerprints(true).addAllParts(parts).build());

        for (int t = 0; t < BlockTables.TABLES; t++) {
            for (int i = 0; i < probes.length; i++) {
                assertEquals(linearScan(t, probes[i], 3), found(answer.getParts(t).getMatches(i)), "table " + t + ", probe " + i);
            }
        }
    }

    private static ShardProbePart part(int table, long[] fps, int maxDistance) {
        ShardProbePart.Builder b = ShardProbePart.newBuilder().setTable(table).setMaxDistance(maxDistance);
        for (long fp : fps) {
            b.addFingerprints(fp);
        }
        return b.build();
    }

    /** Stored (fingerprint, generation) pairs of fp's bucket in {@code table} within {@code maxDistance}. */
    private TreeSet<String> linearScan(int table, long fp, int maxDistance) {
        TreeSet<String> out = new TreeSet<>();
        for (int g = 0; g < stored.size(); g++) {
            for (long s : stored.get(g)) {
                if (BlockTables.block(s, table) == BlockTables.block(fp, table) && Long.bitCount(s ^ fp) <= maxDistance) {
                    out.add(s + "@" + GENERATIONS[g]);
                }
            }
        }
        return out;
    }

    private static TreeSet<String> found(FingerprintList list) {
        TreeSet<String> out = new TreeSet<>();
        for (int i = 0; i < list.getFingerprintsCount(); i++) {
            out.add(list.getFingerprints(i) + "@" + list.getGenerations(i));
        }
        assertEquals(list.getFingerprintsCount(), out.size(), "a match twice");
        return out;
    }

    private static long flip(long fp, int bits, SplittableRandom rnd) {
        long out = fp;
        while (Long.bitCount(out ^ fp) < bits) {
            out ^= 1L << rnd.nextInt(64);
        }
        return out;
    }

    /** A mask that flips bit {@code bit} of table {@code table}'s block. */
    private static long flipInBlock(int table, int bit) {
        for (long mask = 1; mask != 0; mask <<= 1) {
            if (BlockTables.block(mask, table) == 1 << bit) {
                return mask;
            }
        }
        throw new AssertionError("no bit " + bit + " in table " + table + "'s block");
    }
}
