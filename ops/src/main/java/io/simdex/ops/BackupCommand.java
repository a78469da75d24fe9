package io.simdex.ops;

import io.simdex.server.DataDirBackup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;

/** {@code simdex backup --data DIR DEST}: a copy of a server's data directory that a server can start on ({@link DataDirBackup}). */
@Command(name = "backup", mixinStandardHelpOptions = true,
        description = {"Copy the data directory of an embedded server or a shard process, running or stopped, to DEST.",
                "",
                "A stopped server's copy is exact. A running one's needs --durability fsync: the copy is then what an OS crash at its"
                        + " end would leave, with every write acknowledged before the copy began, and a server started on it replays"
                        + " its write-ahead logs. A running server without a log is refused, and so is a cluster member's directory."
                        + " Map files stay sparse in the copy."})
final class BackupCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--data", required = true, paramLabel = "DIR", description = "The server's data directory (its --data).")
    Path data;

    @Parameters(paramLabel = "DEST", description = "Where the copy goes: a new or empty directory, not inside DIR.")
    Path dest;

    @Override
    public Integer call() {
        if (Files.isDirectory(data.resolve("atomix"))) {
            spec.commandLine().getErr().println("simdex backup: " + data + " is a cluster member's (it holds atomix/): a node's data is"
                    + " restored from its replicas (ops/docs/CLUSTER.md), not from a copy");
            return 2;
        }
        long start = System.nanoTime();
        DataDirBackup.Copied c;
        try {
            c = DataDirBackup.copy(data, dest);
        } catch (IllegalStateException e) {
            spec.commandLine().getErr().println("simdex backup: " + e.getMessage());
            return 2;
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        String how = c.liveShards() == 0
                ? "no server held it: the copy is exact"
                : c.liveShards() + " shard director" + (c.liveShards() == 1 ? "y" : "ies") + " copied while a server wrote them: a server"
                        + " started on " + dest + " replays their write-ahead logs";
        spec.commandLine().getOut().printf(Locale.ROOT, "copied %s to %s: %d files, %.1f MB written, %.1f s%s; %s%n", data, dest, c.files(),
                c.bytes() / 1e6, seconds, c.attempts() > 1 ? " (" + c.attempts() + " attempts)" : "", how);
        return 0;
    }
}
