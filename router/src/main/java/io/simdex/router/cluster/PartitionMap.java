package io.simdex.router.cluster;

import com.google.protobuf.InvalidProtocolBufferException;
import io.simdex.core.Partitions;
import io.simdex.proto.v1.PartitionMapState;
import io.simdex.proto.v1.PartitionState;
import io.simdex.proto.v1.PlacedNode;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Which nodes keep each partition: an immutable view of the {@code PartitionMapState} kept in
 * Atomix. Every change makes a new map with the next epoch. The serialized form is canonical
 * (protobuf without maps), which the compare-and-set in {@link PartitionMapStore} relies on.
 */
public final class PartitionMap {
    private final PartitionMapState state;

    private PartitionMap(PartitionMapState state) {
        if (state.getPartitionsCount() != Partitions.COUNT) {
            throw new IllegalArgumentException("a partition map has " + Partitions.COUNT + " partitions, not " + state.getPartitionsCount());
        }
        this.state = state;
    }

    /** Epoch 1: partition p on nodes p, p+1, ..., p+R-1 (mod n), so every node leads 1/n of the partitions. */
    public static PartitionMap initial(List<PlacedNode> nodes, int replication, int writeQuorum) {
        if (replication < 1 || replication > nodes.size()) {
            throw new IllegalArgumentException("replication " + replication + " needs at least that many nodes, have " + nodes.size());
        }
        if (writeQuorum < 1 || writeQuorum > replication) {
            throw new IllegalArgumentException("write quorum must be 1.." + replication + ", was " + writeQuorum);
        }
        PartitionMapState.Builder b = PartitionMapState.newBuilder().setEpoch(1).setReplication(replication)
                .setWriteQuorum(writeQuorum).addAllNodes(nodes);
        for (int p = 0; p < Partitions.COUNT; p++) {
            PartitionState.Builder ps = PartitionState.newBuilder();
            for (int r = 0; r < replication; r++) {
                ps.addReplicas((p + r) % nodes.size());
            }
            b.addPartitions(ps);
        }
        return new PartitionMap(b.build());
    }

    public static int majority(int replication) {
        return replication / 2 + 1;
    }

    public static PartitionMap fromBytes(byte[] bytes) {
        try {
            return new PartitionMap(PartitionMapState.parseFrom(bytes));
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalStateException("unreadable partition map", e);
        }
    }

    public byte[] toBytes() {
        return state.toByteArray();
    }

    public PartitionMapState state() {
        return state;
    }

    public long epoch() {
        return state.getEpoch();
    }

    public int replication() {
        return state.getReplication();
    }

    public int writeQuorum() {
        return state.getWriteQuorum();
    }

    public List<PlacedNode> nodes() {
        return state.getNodesList();
    }

    public int indexOf(String nodeId) {
        for (int i = 0; i < state.getNodesCount(); i++) {
            if (state.getNodes(i).getId().equals(nodeId)) {
                return i;
            }
        }
        return -1;
    }

    public int[] replicas(int partition) {
        return state.getPartitions(partition).getReplicasList().stream().mapToInt(Integer::intValue).toArray();
    }

    public int[] incoming(int partition) {
        return state.getPartitions(partition).getIncomingList().stream().mapToInt(Integer::intValue).toArray();
    }

    /** Whether node {@code node} is a serving replica of {@code partition}. */
    public boolean isReplica(int partition, int node) {
        return contains(replicas(partition), node);
    }

    /** Whether node {@code node} is incoming for {@code partition}: it takes its writes while it copies it. */
    public boolean isIncoming(int partition, int node) {
        return contains(incoming(partition), node);
    }

    /** Partitions node {@code node} keeps (as a serving replica). */
    public int[] partitionsOf(int node) {
        return java.util.stream.IntStream.range(0, Partitions.COUNT).filter(p -> isReplica(p, node)).toArray();
    }

    public int moving() {
        int n = 0;
        for (PartitionState p : state.getPartitionsList()) {
            n += p.getIncomingCount() > 0 ? 1 : 0;
        }
        return n;
    }

    /** Per node id: {replicas, incoming}, in node order. */
    public Map<String, int[]> shares() {
        Map<String, int[]> out = new TreeMap<>();
        for (PlacedNode n : state.getNodesList()) {
            out.put(n.getId(), new int[2]);
        }
        for (PartitionState p : state.getPartitionsList()) {
            p.getReplicasList().forEach(r -> out.get(state.getNodes(r).getId())[0]++);
            p.getIncomingList().forEach(r -> out.get(state.getNodes(r).getId())[1]++);
        }
        return out;
    }

    /** The same map with {@code node} added (not yet holding anything), or updated address; next epoch. */
    public PartitionMap withNode(PlacedNode node) {
        PartitionMapState.Builder b = next();
        int i = indexOf(node.getId());
        if (i < 0) {
            b.addNodes(node);
        } else {
            b.setNodes(i, node);
        }
        return new PartitionMap(b.build());
    }

    public PartitionMap withDraining(String nodeId, boolean draining) {
        int i = require(nodeId);
        return new PartitionMap(next().setNodes(i, state.getNodes(i).toBuilder().setDraining(draining)).build());
    }

    /** Starts copying each partition of {@code moves} to its target: the target takes writes from the next epoch on. */
    public PartitionMap withIncoming(List<Move> moves) {
        PartitionMapState.Builder b = next();
        for (Move m : moves) {
            PartitionState p = b.getPartitions(m.partition());
            if (!contains(p.getIncomingList(), m.to())) {
                b.setPartitions(m.partition(), p.toBuilder().addIncoming(m.to()));
            }
        }
        return new PartitionMap(b.build());
    }

    /** Finishes moves: each target replaces its source in the replica list (same read preference), stops being incoming. */
    public PartitionMap withMovesDone(List<Move> moves) {
        PartitionMapState.Builder b = next();
        for (Move m : moves) {
            PartitionState p = b.getPartitions(m.partition());
            List<Integer> replicas = new ArrayList<>(p.getReplicasList());
            int at = replicas.indexOf(m.from());
            if (at < 0 || !p.getIncomingList().contains(m.to())) {
                throw new IllegalStateException("move " + m + " does not match partition " + m.partition() + ": " + p);
            }
            replicas.set(at, m.to());
            List<Integer> incoming = new ArrayList<>(p.getIncomingList());
            incoming.remove(Integer.valueOf(m.to()));
            b.setPartitions(m.partition(), PartitionState.newBuilder().addAllReplicas(replicas).addAllIncoming(incoming));
        }
        return new PartitionMap(b.build());
    }

    /** Abandons moves: their targets stop taking writes (their partial copies are dropped by the caller). */
    public PartitionMap withMovesAbandoned(List<Move> moves) {
        PartitionMapState.Builder b = next();
        for (Move m : moves) {
            PartitionState p = b.getPartitions(m.partition());
            List<Integer> incoming = new ArrayList<>(p.getIncomingList());
            incoming.remove(Integer.valueOf(m.to()));
            b.setPartitions(m.partition(), p.toBuilder().clearIncoming().addAllIncoming(incoming));
        }
        return new PartitionMap(b.build());
    }

    /** Removes a node that keeps nothing; node numbers above it shift down. */
    public PartitionMap withoutNode(String nodeId) {
        int gone = require(nodeId);
        int[] share = shares().get(nodeId);
        if (share[0] + share[1] > 0) {
            throw new IllegalStateException(nodeId + " still keeps " + share[0] + " partitions (" + share[1] + " incoming): drain it first");
        }
        PartitionMapState.Builder b = next().removeNodes(gone);
        for (int p = 0; p < Partitions.COUNT; p++) {
            PartitionState ps = b.getPartitions(p);
            b.setPartitions(p, PartitionState.newBuilder()
                    .addAllReplicas(ps.getReplicasList().stream().map(r -> r > gone ? r - 1 : r).toList())
                    .addAllIncoming(ps.getIncomingList().stream().map(r -> r > gone ? r - 1 : r).toList()));
        }
        return new PartitionMap(b.build());
    }

    /** One partition replica moving from node {@code from} to node {@code to} (node numbers of this map). */
    public record Move(int partition, int from, int to) {
    }

    /**
     * The moves that even out the replicas over the nodes that are not draining: a draining
     * node gives all of its partitions away; each move takes a partition from the most loaded
     * node to the least loaded one that does not keep it yet. Deterministic.
     */
    public List<Move> balancingMoves() {
        int n = state.getNodesCount();
        int[] load = new int[n];
        boolean[] draining = new boolean[n];
        int active = 0;
        for (int i = 0; i < n; i++) {
            draining[i] = state.getNodes(i).getDraining();
            active += draining[i] ? 0 : 1;
        }
        if (active < replication()) {
            throw new IllegalStateException(active + " active nodes cannot keep " + replication() + " replicas of every partition");
        }
        List<List<Integer>> replicas = new ArrayList<>();
        for (PartitionState p : state.getPartitionsList()) {
            replicas.add(new ArrayList<>(p.getReplicasList()));
            p.getReplicasList().forEach(r -> load[r]++);
        }
        int total = Partitions.COUNT * replication();
        int ceiling = (total + active - 1) / active;
        List<Move> moves = new ArrayList<>();
        for (int p = 0; p < Partitions.COUNT; p++) {
            List<Integer> rs = replicas.get(p);
            for (int k = 0; k < rs.size(); k++) {
                int from = rs.get(k);
                if (!draining[from] && load[from] <= ceiling) {
                    continue;
                }
                int to = -1;
                for (int c = 0; c < n; c++) {
                    if (!draining[c] && !rs.contains(c) && (to < 0 || load[c] < load[to])) {
                        to = c;
                    }
                }
                if (to < 0 || (!draining[from] && load[to] >= ceiling)) {
                    continue;
                }
                moves.add(new Move(p, from, to));
                rs.set(k, to);
                load[from]--;
                load[to]++;
            }
        }
        return moves;
    }

    private int require(String nodeId) {
        int i = indexOf(nodeId);
        if (i < 0) {
            throw new IllegalArgumentException("no node '" + nodeId + "' in the partition map");
        }
        return i;
    }

    private PartitionMapState.Builder next() {
        return state.toBuilder().setEpoch(state.getEpoch() + 1);
    }

    private static boolean contains(int[] values, int v) {
        return Arrays.stream(values).anyMatch(x -> x == v);
    }

    private static boolean contains(List<Integer> values, int v) {
        return values.contains(v);
    }

    @Override
    public String toString() {
        return "PartitionMap{epoch " + epoch() + ", R " + replication() + ", W " + writeQuorum() + ", shares " + sharesText() + "}";
    }

    private String sharesText() {
        StringBuilder sb = new StringBuilder();
        shares().forEach((id, s) -> sb.append(sb.length() == 0 ? "" : ", ").append(id).append('=').append(s[0])
                .append(s[1] > 0 ? "+" + s[1] : ""));
        return sb.toString();
    }
}
