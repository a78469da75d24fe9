package io.simdex.router.shard;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntPredicate;

/**
 * A cluster's query reads node by node rather than replica set by replica set. Each query
 * chooses one readable node per group, preferring the nodes already chosen, so a node that
 * serves several groups gets one call for all of them, and it resolves the ids of every match
 * whose fingerprint any of its groups owns. With R equal to the node count one node answers the
 * whole query in one round trip; with R=2 over 3 nodes two nodes do, and the second round
 * (ids the first one could not resolve) goes to the same two. Which node comes first turns with
 * every query, so queries spread over the replicas.
 *
 * <p>A node is readable (live, and not known to have missed writes) for all of its groups or
 * for none, so its answer for any group it serves is what that group's {@link ReplicaSet} would
 * read. A group without a readable replica is read through its replica set, which also asks
 * replicas that are not readable; so is every group of a query whose node call failed over
 * ({@link #failsOver}).
 */
public final class NodeReads {
    private final ShardClient[] nodes;
    private final int[][] replicasOfGroup;
    private final IntPredicate readable;
    /** Per node, the partitions of every group it serves (ProbeMany's bitmap form). */
    private final byte[][] servedPartitions;
    private final AtomicInteger turn = new AtomicInteger();

    /**
     * @param nodes           every node of the map, by node number
     * @param replicasOfGroup per group of {@code placement}, its serving replicas' node numbers
     * @param readable        whether a node may be read first (as the replica sets read)
     */
    public NodeReads(List<? extends ShardClient> nodes, int[][] replicasOfGroup, Placement placement, IntPredicate readable) {
        if (replicasOfGroup.length != placement.shards()) {
            throw new IllegalArgumentException(placement.shards() + " groups placed but replicas of " + replicasOfGroup.length + " given");
        }
        this.nodes = nodes.toArray(new ShardClient[0]);
        this.replicasOfGroup = replicasOfGroup.clone();
        this.readable = readable;
        this.servedPartitions = new byte[this.nodes.length][Placement.PARTITIONS / Byte.SIZE];
        for (int g = 0; g < replicasOfGroup.length; g++) {
            byte[] partitions = placement.partitionBitmap(g);
            for (int node : replicasOfGroup[g]) {
                for (int i = 0; i < partitions.length; i++) {
                    servedPartitions[node][i] |= partitions[i];
                }
            }
        }
    }

    /** Whether a node call's failure sends the query back to the replica sets: as a replica set fails over. */
    public static boolean failsOver(Throwable t) {
        return ReplicaSet.failsOver(t);
    }

    /**
     * Where this query reads each group: {@code nodeOfGroup[g]} is a readable serving replica of
     * group g, or -1 when g has none (read g through its replica set).
     */
    public Plan plan() {
        int first = Math.floorMod(turn.getAndIncrement(), nodes.length);
        int[] nodeOfGroup = new int[replicasOfGroup.length];
        boolean[] chosen = new boolean[nodes.length];
        // Each group to a node already chosen that serves it, else to its earliest readable
        // replica in turn order: few nodes per query, and each node first as often as the others.
        for (int g = 0; g < replicasOfGroup.length; g++) {
            int best = -1;
            int bestRank = Integer.MAX_VALUE;
            for (int node : replicasOfGroup[g]) {
                if (!readable.test(node)) {
                    continue;
                }
                int rank = Math.floorMod(node - first, nodes.length) - (chosen[node] ? nodes.length : 0);
                if (rank < bestRank) {
                    best = node;
                    bestRank = rank;
                }
            }
            nodeOfGroup[g] = best;
            if (best >= 0) {
                chosen[best] = true;
            }
        }
        return new Plan(nodeOfGroup);
    }

    /** One query's choice of node per group (-1: through the group's replica set). */
    public final class Plan {
        private final int[] nodeOfGroup;

        private Plan(int[] nodeOfGroup) {
            this.nodeOfGroup = nodeOfGroup;
        }

        /** How many readers {@link #reader} numbers: the nodes, then the groups. */
        public int readers() {
            return nodes.length + nodeOfGroup.length;
        }

        /** The reader of group g: its chosen node, or (past the nodes) the group itself. */
        public int reader(int group) {
            int node = nodeOfGroup[group];
            return node >= 0 ? node : nodes.length + group;
        }

        /** Reader r's client: a node's, or a group's replica set from {@code groups}. */
        public ShardClient client(int reader, ShardClient[] groups) {
            return reader < nodes.length ? nodes[reader] : groups[reader - nodes.length];
        }

        /** The partitions reader r resolves ids for: all its node's groups', or its group's. */
        public byte[] resolvable(int reader, Placement placement) {
            return reader < nodes.length ? servedPartitions[reader] : placement.partitionBitmap(reader - nodes.length);
        }

        /** The readers' clients in reader order, for {@link Fanout}. */
        public ShardClient[] clients(ShardClient[] groups) {
            ShardClient[] out = new ShardClient[readers()];
            for (int r = 0; r < out.length; r++) {
                out[r] = client(r, groups);
            }
            return out;
        }
    }
}
