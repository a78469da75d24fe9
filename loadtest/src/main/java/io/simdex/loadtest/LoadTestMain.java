package io.simdex.loadtest;

import io.simdex.loadtest.gen.GenCommand;
import io.simdex.loadtest.proxy.DelayProxyCommand;
import io.simdex.loadtest.report.ReportCommand;
import io.simdex.loadtest.run.LoadCommand;
import io.simdex.loadtest.run.RunCommand;
import io.simdex.loadtest.run.ServeCommand;
import io.simdex.loadtest.run.SweepCommand;
import io.simdex.loadtest.store.StoreBenchCommand;
import picocli.CommandLine.Command;
import picocli.CommandLine.Unmatched;
import picocli.CommandLine;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/** The entry point of {@code simdex-loadtest.jar}: one subcommand per tool. */
@Command(name = "simdex-loadtest", mixinStandardHelpOptions = true,
        subcommands = {GenCommand.class, LoadCommand.class, RunCommand.class, SweepCommand.class, ServeCommand.class,
                StoreBenchCommand.class, io.simdex.loadtest.quality.PartitionSkew.class, ReportCommand.class,
                DelayProxyCommand.class, LoadTestMain.JmhCommand.class, io.simdex.loadtest.jmh.DedupCpuCommand.class,
                io.simdex.loadtest.jmh.SketchGrowthCommand.class},
        description = "simdex measurement harness: data, load, latency, the echo floor, the store benchmark, JMH, the report and a delay proxy.")
public final class LoadTestMain {
    /** Exit status for bad arguments, as picocli uses for usage errors. */
    private static final int BAD_INPUT = 2;

    public static void main(String[] args) {
        // Before any Chronicle class loads: no analytics traffic from a benchmark either, nor
        // Chronicle's start-up banner in its output.
        System.setProperty("chronicle.analytics.disable", "true");
        System.setProperty("chronicle.announcer.disable", "true");
        System.exit(run(args));
    }

    static int run(String... args) {
        return new CommandLine(new LoadTestMain())
                .setExecutionExceptionHandler((e, cmd, parsed) -> {
                    if (e instanceof IllegalArgumentException) {
                        cmd.getErr().println(cmd.getCommandName() + ": " + e.getMessage());
                        return BAD_INPUT;
                    }
                    throw e;
                })
                .execute(args);
    }

    /** {@code jmh}: everything after it goes to JMH's own command line ({@code jmh -h} for its help). */
    @Command(name = "jmh", description = {"Run the JMH benchmarks (io.simdex.loadtest.jmh).",
            "Arguments go to org.openjdk.jmh.Main: `jmh -l`, `jmh StoreProbe -p count=10000000`, `jmh -h`."})
    static final class JmhCommand implements Callable<Integer> {
        @Unmatched
        List<String> args = new ArrayList<>();

        @Override
        public Integer call() throws Exception {
            org.openjdk.jmh.Main.main(args.toArray(new String[0]));
            return 0;
        }
    }
}
