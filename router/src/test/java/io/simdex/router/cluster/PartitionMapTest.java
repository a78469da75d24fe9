package io.simdex.router.cluster;

import io.simdex.core.Partitions;
import io.simdex.proto.v1.PlacedNode;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PartitionMapTest {
    private static PlacedNode node(int i) {
        return PlacedNode.newBuilder().setId("node-" + i).setAddress("127.0.0.1:" + (7500 + i)).build();
    }

    private static PartitionMap initial(int nodes, int r) {
        return PartitionMap.initial(IntStream.rangeClosed(1, nodes).mapToObj(PartitionMapTest::node).toList(), r, PartitionMap.majority(r));
    }

    private static PartitionMap apply(PartitionMap map) {
        List<PartitionMap.Move> moves = map.balancingMoves();
        PartitionMap copying = map.withIncoming(moves);
        assertEquals(map.epoch() + 1, copying.epoch());
        assertEquals(moves.stream().mapToInt(PartitionMap.Move::partition).distinct().count(), copying.moving());
        return copying.withMovesDone(moves);
    }

    private static void assertDistinctReplicas(PartitionMap map, int r) {
        for (int p = 0; p < Partitions.COUNT; p++) {
            int[] replicas = map.replicas(p);
            assertEquals(r, replicas.length, "partition " + p);
            assertEquals(r, Arrays.stream(replicas).distinct().count(), "partition " + p + ": " + Arrays.toString(replicas));
            assertEquals(0, map.incoming(p).length);
        }
    }

    @Test
    void initial_everyPartitionOnRDistinctNodes_evenShares() {
        PartitionMap map = initial(3, 2);
        assertDistinctReplicas(map, 2);
        assertEquals(Map.of("node-1", 2731, "node-2", 2731, "node-3", 2730),
                Map.of("node-1", map.shares().get("node-1")[0], "node-2", map.shares().get("node-2")[0], "node-3", map.shares().get("node-3")[0]));
        assertEquals(1, map.epoch());
    }

    @Test
    void addingANode_movesItsShareOnly_andKeepsReplicasDistinct() {
        PartitionMap before = initial(3, 2).withNode(node(4));
        List<PartitionMap.Move> moves = before.balancingMoves();
        assertEquals(2048, moves.size(), "exactly the new node's share moves");
        assertTrue(moves.stream().allMatch(m -> m.to() == 3));
        PartitionMap after = apply(before);
        assertDistinctReplicas(after, 2);
        after.shares().forEach((id, s) -> assertEquals(2048, s[0], id));
        assertEquals(List.of(), after.balancingMoves(), "balanced maps stay put");
    }

    @Test
    void draining_movesEveryReplicaOff_thenTheNodeCanBeRemoved() {
        PartitionMap map = apply(initial(4, 2).withDraining("node-2", true));
        assertDistinctReplicas(map, 2);
        assertEquals(0, map.shares().get("node-2")[0]);
        map.shares().forEach((id, s) -> assertTrue(id.equals("node-2") || Math.abs(s[0] - 2731) <= 1, id + " " + s[0]));
        PartitionMap removed = map.withoutNode("node-2");
        assertEquals(3, removed.nodes().size());
        assertDistinctReplicas(removed, 2);
        for (int p = 0; p < Partitions.COUNT; p++) { // same node ids per partition, renumbered
            int pp = p;
            assertEquals(Arrays.stream(map.replicas(p)).mapToObj(r -> map.nodes().get(r).getId()).toList(),
                    Arrays.stream(removed.replicas(pp)).mapToObj(r -> removed.nodes().get(r).getId()).toList());
        }
    }

    @Test
    void removingANodeThatKeepsPartitions_isRefused() {
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> initial(3, 2).withoutNode("node-1"));
        assertTrue(e.getMessage().contains("drain it first"), e.getMessage());
    }

    @Test
    void drainingBelowR_isRefused() {
        assertThrows(IllegalStateException.class, () -> initial(2, 2).withDraining("node-1", true).balancingMoves());
    }

    @Test
    void bytes_roundTripCanonically() {
        PartitionMap map = apply(initial(3, 2).withNode(node(4)));
        assertArrayEquals(map.toBytes(), PartitionMap.fromBytes(map.toBytes()).toBytes());
    }

    @Test
    void abandonedMoves_leaveTheOldPlacement() {
        PartitionMap before = initial(3, 2).withNode(node(4));
        List<PartitionMap.Move> moves = before.balancingMoves();
        PartitionMap back = before.withIncoming(moves).withMovesAbandoned(moves);
        for (int p = 0; p < Partitions.COUNT; p++) {
            assertArrayEquals(before.replicas(p), back.replicas(p));
            assertEquals(0, back.incoming(p).length);
        }
    }

    @Test
    void abandoningByTargetOnly_clearsLeftoverIncomingCopies() {
        PartitionMap before = initial(3, 2).withNode(node(4));
        List<PartitionMap.Move> moves = before.balancingMoves();
        PartitionMap stuck = before.withIncoming(moves);
        List<PartitionMap.Move> leftovers = moves.stream().map(m -> new PartitionMap.Move(m.partition(), -1, m.to())).toList();
        PartitionMap cleared = stuck.withMovesAbandoned(leftovers);
        assertEquals(0, cleared.moving());
        assertEquals(moves.size(), cleared.balancingMoves().size(), "the same moves are planned again");
    }
}
