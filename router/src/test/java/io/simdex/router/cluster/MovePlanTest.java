package io.simdex.router.cluster;

import io.simdex.proto.v1.PlacedNode;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** How {@link MovePlan} batches a drain's moves and rounds them, on placements built in memory. */
class MovePlanTest {
    @Test
    void drainPlan_atR3OverSix_copiesFromTheOtherReplicasEvenly_fourSourcesARound() {
        List<PlacedNode> six = IntStream.rangeClosed(1, 6).mapToObj(MovePlanTest::placed).toList();
        // Placed round a ring, p on nodes p, p+1, p+2: node-6's partitions have their other
        // replicas on node-4 and node-5, node-5 and node-1, or node-1 and node-2.
        PartitionMap map = PartitionMap.initial(six, 3, 2).withDraining("node-6", true);
        int drained = map.indexOf("node-6");
        List<MovePlan.Batch> batches = MovePlan.batches(map, map.balancingMoves(), six.stream().map(PlacedNode::getId).collect(Collectors.toSet()));

        int[] served = new int[six.size()];
        for (MovePlan.Batch b : batches) {
            assertTrue(b.moves().size() <= MovePlan.BATCH, b.moves().size() + " partitions in a batch");
            for (PartitionMap.Move m : b.moves()) {
                assertEquals(drained, m.from(), m.toString());
                assertEquals(b.target(), m.to(), m.toString());
            }
            served[b.source()] += b.moves().size();
        }
        assertEachSourceKeepsItsPartitions(map, batches);
        assertEquals(0, served[drained], "partitions copied from node-6");
        assertEquals(map.partitionsOf(drained).length, Arrays.stream(served).sum());
        for (String n : List.of("node-1", "node-2", "node-4", "node-5")) {
            int share = served[map.indexOf(n)];
            assertTrue(Math.abs(share - map.partitionsOf(drained).length / 4) <= 2, n + " serves " + share + " of " + Arrays.toString(served));
        }
        assertEquals(4, MovePlan.rounds(batches).get(0).size(), "batches of the first round");
    }

    @Test
    void drainPlan_fromTheDrainedNodeWhenSpreadingTakesMoreRounds_spreadWhenItIsDown() {
        // Ten nodes at R=3, placed by joins one at a time from three: node-2's partitions have
        // their other replicas all over, so spread copies would take 11 rounds against 9.
        PartitionMap map = PartitionMap.initial(IntStream.rangeClosed(1, 3).mapToObj(MovePlanTest::placed).toList(), 3, 2);
        for (int k = 4; k <= 10; k++) {
            map = map.withNode(placed(k));
            List<PartitionMap.Move> moves = map.balancingMoves();
            map = map.withIncoming(moves).withMovesDone(moves);
        }
        PartitionMap draining = map.withDraining("node-2", true);
        int drained = draining.indexOf("node-2");
        List<PartitionMap.Move> moves = draining.balancingMoves();
        Set<String> all = IntStream.rangeClosed(1, 10).mapToObj(i -> "node-" + i).collect(Collectors.toSet());

        List<MovePlan.Batch> up = MovePlan.batches(draining, moves, all);
        assertTrue(up.stream().allMatch(b -> b.source() == drained), "copies from node-2 while it is up");
        assertEquals(9, MovePlan.rounds(up).size(), "rounds, a batch for each of the nine targets");

        Set<String> withoutIt = new HashSet<>(all);
        withoutIt.remove("node-2");
        List<MovePlan.Batch> down = MovePlan.batches(draining, moves, withoutIt);
        assertTrue(down.stream().noneMatch(b -> b.source() == drained), "copies from node-2 while it is down");
        assertEachSourceKeepsItsPartitions(draining, down);
        assertEquals(moves.size(), down.stream().mapToInt(b -> b.moves().size()).sum());
    }

    private static void assertEachSourceKeepsItsPartitions(PartitionMap map, List<MovePlan.Batch> batches) {
        for (MovePlan.Batch b : batches) {
            for (PartitionMap.Move m : b.moves()) {
                assertTrue(Arrays.stream(map.replicas(m.partition())).anyMatch(r -> r == b.source()), "source " + b.source() + " of " + m + " keeps it");
            }
        }
    }

    private static PlacedNode placed(int i) {
        return PlacedNode.newBuilder().setId("node-" + i).setAddress("127.0.0.1:" + (7500 + i)).build();
    }
}
