package io.simdex.router.shard;

import org.junit.jupiter.api.Test;

import java.util.Collections;
import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

class NodeReadsTest {
    /** Groups as PartitionMap.initial places R replicas over n nodes: group g on g, g+1, ... (mod n). */
    private static NodeReads reads(int nodes, int replication, java.util.function.IntPredicate readable) {
        int[][] replicas = new int[nodes][replication];
        for (int g = 0; g < nodes; g++) {
            for (int r = 0; r < replication; r++) {
                replicas[g][r] = (g + r) % nodes;
            }
        }
        return new NodeReads(Collections.nCopies(nodes, null), replicas, Placement.roundRobin(nodes), readable);
    }

    private static Set<Integer> chosen(NodeReads.Plan plan, int groups) {
        Set<Integer> out = new HashSet<>();
        for (int g = 0; g < groups; g++) {
            out.add(plan.reader(g));
        }
        return out;
    }

    @Test
    void plan_replicationEqualsNodes_oneNodeReadsEveryGroup_turningEachQuery() {
        NodeReads reads = reads(3, 3, n -> true);
        for (int q = 0; q < 6; q++) {
            assertEquals(Set.of(q % 3), chosen(reads.plan(), 3), "query " + q);
        }
    }

    @Test
    void plan_r2OverThreeNodes_twoNodes_eachReadsAsOftenOverThreeQueries() {
        NodeReads reads = reads(3, 2, n -> true);
        int[] groupsRead = new int[3];
        for (int q = 0; q < 3; q++) {
            NodeReads.Plan plan = reads.plan();
            assertEquals(2, chosen(plan, 3).size(), "query " + q);
            for (int g = 0; g < 3; g++) {
                int node = plan.reader(g);
                assertEquals(true, node == g || node == (g + 1) % 3, "group " + g + " read from a replica of it, not " + node);
                groupsRead[node]++;
            }
        }
        assertArrayEquals(new int[]{3, 3, 3}, groupsRead);
    }

    @Test
    void plan_unreadableNodesSkipped_groupWithoutReadableReplicaGoesToItsReplicaSet() {
        NodeReads reads = reads(4, 2, n -> n != 1 && n != 2);
        NodeReads.Plan plan = reads.plan();
        assertEquals(0, plan.reader(0)); // {0, 1}
        assertEquals(4 + 1, plan.reader(1)); // {1, 2}: no readable replica, read through the group
        assertEquals(3, plan.reader(2)); // {2, 3}
        assertEquals(0, plan.reader(3)); // {3, 0}: both already chosen, 0 comes first this turn
        assertEquals(4 + 4, plan.readers());
    }

    @Test
    void resolvable_nodeResolvesEveryGroupItServes_groupReaderOnlyItsOwn() {
        Placement placement = Placement.roundRobin(3);
        NodeReads reads = new NodeReads(Collections.nCopies(3, null), new int[][]{{0, 1}, {1, 2}, {2, 0}}, placement, n -> true);
        NodeReads.Plan plan = reads.plan();
        byte[] node0 = plan.resolvable(0, placement);
        for (int p = 0; p < Placement.PARTITIONS; p++) {
            boolean set = (node0[p >>> 3] & (1 << (p & 7))) != 0;
            assertEquals(p % 3 == 0 || p % 3 == 2, set, "partition " + p + " (group " + p % 3 + ")");
        }
        assertArrayEquals(placement.partitionBitmap(1), plan.resolvable(3 + 1, placement));
    }
}
