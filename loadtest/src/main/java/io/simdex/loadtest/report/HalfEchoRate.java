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
        return (long) (report.number(report.requiredRunReport("echo"), "median.requestsPerSecond") / 2);
    }
}
