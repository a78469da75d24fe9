package io.simdex.client.cli;

import io.simdex.client.SimdexAdmin;
import io.simdex.proto.v1.PlacementResponse;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code admin members|placement|add|drain|remove}: cluster administration through a router's
 * Admin service. Add and drain live in {@link AdminMoveCommand}, for their progress display.
 */
@Command(name = "admin", description = "Administer a cluster through one of its routers.",
        subcommands = {AdminCommand.MembersCommand.class, AdminCommand.PlacementCommand.class,
                AdminMoveCommand.AddCommand.class, AdminMoveCommand.DrainCommand.class, AdminCommand.RemoveCommand.class})
final class AdminCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(),
                "Missing required subcommand: members, placement, add, drain or remove");
    }

    @Command(name = "members", description = "List the cluster's nodes and routers, with liveness and replica counts.")
    static final class MembersCommand extends AdminClientCommand {
        @Override
        int execute(SimdexAdmin admin) {
            var members = admin.members();
            if (json()) {
                printJson(Json.members(members));
            } else {
                AdminText.members(out(), members);
            }
            return 0;
        }
    }

    @Command(name = "placement", description = "Print the partition map: epoch, replication and each node's share.")
    static final class PlacementCommand extends AdminClientCommand {
        @Option(names = "--partitions", description = "Also print every partition's replicas (4096 lines).")
        boolean partitions;

        @Override
        int execute(SimdexAdmin admin) {
            PlacementResponse placement = admin.placement(partitions);
            if (json()) {
                printJson(Json.placement(placement));
                return 0;
            }
            AdminText.placement(out(), placement);
            if (partitions) {
                out().println();
                AdminText.partitions(out(), placement.getPartitionsList());
            }
            return 0;
        }
    }

    @Command(name = "remove", description = "Remove a drained node from the placement (fails while it holds replicas).")
    static final class RemoveCommand extends AdminClientCommand {
        @Parameters(paramLabel = "NODE", description = "The node id, e.g. node-4.")
        String node;

        @Override
        int execute(SimdexAdmin admin) {
            PlacementResponse placement = admin.removeNode(node);
            if (json()) {
                printJson(Json.placement(placement));
                return 0;
            }
            out().printf("removed %s%n%n", node);
            AdminText.placement(out(), placement);
            return 0;
        }
    }
}
