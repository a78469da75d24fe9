package io.simdex.loadtest.report;

import java.nio.file.Path;

/**
 * Prints half the echo's median calls per second in a closed-loop {@code run} report: the rate
 * target 3b is judged at ({@code bin/measure-report} runs the open loop at it).
 */
public final class HalfEchoRate {
    private HalfEchoRate() {
    }

    public static void main(String[] args) {
        if (args.length != 1) {
            System.err.println("usage: HalfEchoRate RUN_REPORT.json");
            System.exit(2);
        }
        System.out.println(of(ResultJson.read(Path.of(args[0]))));
    }

    static long of(ResultJson report) {
        var echo = report.runReport("echo");
        if (echo == null) {
            throw new IllegalArgumentException(report.file() + ": no report for target echo");
        }
        return (long) (report.number(echo, "median.requestsPerSecond") / 2);
    }
}
