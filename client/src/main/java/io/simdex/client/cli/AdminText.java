package io.simdex.client.cli;

import io.simdex.proto.v1.Member;
import io.simdex.proto.v1.MembersResponse;
import io.simdex.proto.v1.NodeShare;
import io.simdex.proto.v1.PartitionReplicas;
import io.simdex.proto.v1.PlacementResponse;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;

/**
 * The human-readable forms of the admin responses. Fields that only nodes have (raft,
 * replicas, incoming, readable, state) print as "-" for routers; booleans as yes/no.
 */
final class AdminText {
    private static final String ROUTER = "router";
    private static final String NONE = "-";

    private AdminText() {
    }

    static void members(PrintWriter out, MembersResponse r) {
        TextTable table = new TextTable("id", "role", "address", "live", "raft", "replicas", "incoming", "readable", "state");
        for (Member m : r.getMembersList()) {
            if (ROUTER.equals(m.getRole())) {
                table.row(m.getId(), m.getRole(), m.getAddress(), yesNo(m.getLive()), NONE, NONE, NONE, NONE, NONE);
            } else {
                table.row(m.getId(), m.getRole(), m.getAddress(), yesNo(m.getLive()), yesNo(m.getRaft()),
                        m.getReplicas(), m.getIncoming(), yesNo(m.getReadable()), orNone(m.getState()));
            }
        }
        table.print(out);
        out.printf("placement epoch %s%n", Long.toUnsignedString(r.getEpoch()));
    }

    /** The summary: epoch, replication, quorum, moving count and each node's share of the replicas. */
    static void placement(PrintWriter out, PlacementResponse r) {
        out.printf("epoch:         %s%n", Long.toUnsignedString(r.getEpoch()));
        out.printf("replication:   %d%n", r.getReplication());
        out.printf("write quorum:  %d%n", r.getWriteQuorum());
        out.printf("moving:        %d partitions%n", r.getMoving());
        long total = 0;
        for (NodeShare n : r.getNodesList()) {
            total += n.getReplicas();
        }
        out.println();
        TextTable table = new TextTable("node", "state", "replicas", "incoming", "share");
        for (NodeShare n : r.getNodesList()) {
            double share = total == 0 ? 0 : 100.0 * n.getReplicas() / total;
            table.row(n.getNode(), orNone(n.getState()), n.getReplicas(), n.getIncoming(),
                    String.format(Locale.ROOT, "%.1f%%", share));
        }
        table.print(out);
    }

    /** One line per partition: its replicas in read order and the nodes it is being copied to. */
    static void partitions(PrintWriter out, List<PartitionReplicas> partitions) {
        TextTable table = new TextTable("partition", "replicas", "incoming");
        for (PartitionReplicas p : partitions) {
            table.row(p.getPartition(), list(p.getReplicasList()), list(p.getIncomingList()));
        }
        table.print(out);
    }

    private static String list(List<String> nodes) {
        return nodes.isEmpty() ? NONE : String.join(",", nodes);
    }

    private static String orNone(String s) {
        return s.isEmpty() ? NONE : s;
    }

    private static String yesNo(boolean b) {
        return b ? "yes" : "no";
    }
}
