package io.simdex.client.cli;

import com.google.gson.JsonObject;
import io.simdex.client.SimdexAdmin;
import io.simdex.proto.v1.MoveProgress;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.function.Consumer;
import me.tongfei.progressbar.DelegatingProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code admin add NODE} and {@code admin drain NODE}: start a move and follow its progress
 * stream to the end, with a progress bar of partitions moved on stderr, then print a summary.
 * A stream that ends without a {@code done} message is reported as an error (exit 2): the
 * move may still be running on the server, or may have stopped half-way.
 */
abstract class AdminMoveCommand extends AdminClientCommand {
    @Parameters(paramLabel = "NODE", description = "The node id, e.g. node-4.")
    String node;

    @Option(names = "--no-progress", description = "Do not draw the progress bar (for scripts; implied by --json).")
    boolean noProgress;

    /** "added" or "drained", for the summary. */
    abstract String done();

    abstract MoveProgress move(SimdexAdmin admin, Consumer<MoveProgress> onProgress);

    @Command(name = "add", description = "Add a running, joined node to the placement and move partitions to it.")
    static final class AddCommand extends AdminMoveCommand {
        @Override
        String done() {
            return "added";
        }

        @Override
        MoveProgress move(SimdexAdmin admin, Consumer<MoveProgress> onProgress) {
            return admin.addNode(node, onProgress);
        }
    }

    @Command(name = "drain", description = "Move every replica off a node (it stays a member until removed).")
    static final class DrainCommand extends AdminMoveCommand {
        @Override
        String done() {
            return "drained";
        }

        @Override
        MoveProgress move(SimdexAdmin admin, Consumer<MoveProgress> onProgress) {
            return admin.drainNode(node, onProgress);
        }
    }

    @Override
    final int execute(SimdexAdmin admin) {
        long start = System.nanoTime();
        MoveProgress last;
        try (ProgressBar bar = noProgress || json() ? null : progressBar(err())) {
            last = move(admin, bar == null ? p -> { } : p -> show(bar, p));
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        if (!last.getDone()) {
            err().printf("error: the move stream ended before it was done (%d of %d partitions moved)%n",
                    last.getPartitionsDone(), last.getPartitionsTotal());
            return SimdexCli.EXIT_RPC_ERROR;
        }
        printSummary(last, seconds);
        return 0;
    }

    private static void show(ProgressBar bar, MoveProgress p) {
        bar.maxHint(p.getPartitionsTotal());
        bar.stepTo(p.getPartitionsDone());
        bar.setExtraMessage(p.getStage() + " (" + Long.toUnsignedString(p.getRecords()) + " records)");
    }

    /** A bar as wide as the terminal, drawn on the command's stderr writer, where the errors go. */
    private ProgressBar progressBar(PrintWriter err) {
        DelegatingProgressBarConsumer consumer = new DelegatingProgressBarConsumer(line -> {
            err.print('\r');
            err.print(line);
            err.flush();
        }) {
            @Override
            public void close() {
                err.println();
                err.flush();
            }
        };
        return new ProgressBarBuilder()
                .setTaskName(spec.name())
                .setInitialMax(-1)
                .setUnit(" partitions", 1)
                .setConsumer(consumer)
                .setUpdateIntervalMillis(250)
                .build();
    }

    private void printSummary(MoveProgress last, double seconds) {
        long records = last.getRecords();
        double rate = seconds > 0 ? records / seconds : 0;
        if (json()) {
            JsonObject o = new JsonObject();
            o.addProperty("node", node);
            o.addProperty("action", spec.name());
            o.addProperty("partitions", last.getPartitionsDone());
            o.addProperty("records", records);
            o.addProperty("seconds", seconds);
            o.addProperty("recordsPerSecond", rate);
            o.addProperty("epoch", last.getEpoch());
            printJson(o);
            return;
        }
        out().printf(Locale.ROOT, "%s %s: moved %d partitions, %d records in %.2f s (%.0f records/s); epoch %s%n",
                done(), node, last.getPartitionsDone(), records, seconds, rate, Long.toUnsignedString(last.getEpoch()));
    }
}
