package io.simdex.loadtest.report;

import com.google.gson.JsonObject;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import java.util.function.ToDoubleFunction;

/**
 * Unary Query rounds: {@code round-NN-c8.json} (closed loop, concurrency 8, simdex against the
 * echo) and {@code round-NN-open.json} (open loop at half that round's echo median); targets 3a,
 * 3b and 3c, each judged by the median round, with the count of rounds that met it.
 */
final class UnaryFigure implements Figure {
    /** Target 3a: simdex's c=8 rate is at least this share of the echo's. */
    static final double MIN_RATE_SHARE = 0.70;
    /** Target 3b: simdex's open-loop p99 at most this multiple of the echo's. */
    static final double MAX_P99_RATIO = 1.5;
    /** Target 3c: the server's own handling p99, median run, under this many microseconds. */
    static final double MAX_SERVER_P99_MICROS = 1000;

    /** One round's figures; latencies in microseconds, from each report's median run. */
    record Round(String name, double rate, double simdexRate, double echoRate, double simdexP99, double echoP99,
                 double serverP99, List<Double> serverP99Runs, double echoServerP99, List<Double> queuedP99Runs) {
        double rateShare() {
            return simdexRate / echoRate;
        }

        double p99Ratio() {
            return simdexP99 / echoP99;
        }
    }

    static List<Round> rounds(FigureDir dir) {
        List<Round> rounds = new ArrayList<>();
        for (Path open : dir.files("round-*-open.json")) {
            String name = open.getFileName().toString().replace("-open.json", "");
            ResultJson c8 = ResultJson.read(open.resolveSibling(name + "-c8.json"));
            ResultJson ol = ResultJson.read(open);
            JsonObject s = ol.requiredRunReport("simdex");
            JsonObject e = ol.requiredRunReport("echo");
            rounds.add(new Round(name, ol.number(s, "settings.rate"),
                    c8.number(c8.requiredRunReport("simdex"), "median.requestsPerSecond"), c8.number(c8.requiredRunReport("echo"), "median.requestsPerSecond"),
                    ol.number(s, "median.latencyMicros.p99"), ol.number(e, "median.latencyMicros.p99"),
                    ol.number(s, "median.serverHandlingMicros.p99"), ol.perRun(s, "serverHandlingMicros.p99"),
                    ol.number(e, "median.serverHandlingMicros.p99"), ol.perRun(s, "serverHandlingMicros.queuedP99")));
        }
        return rounds;
    }

    @Override
    public String results(FigureDir dir) {
        List<List<String>> rows = new ArrayList<>();
        for (Round r : rounds(dir)) {
            rows.add(List.of(r.name(), Md.count(r.rate()) + "/s",
                    Md.count(r.simdexRate()) + " / " + Md.count(r.echoRate()) + " = " + bold(Md.fixed(r.rateShare(), 3), r.rateShare() >= MIN_RATE_SHARE),
                    Md.millis(r.simdexP99()) + " / " + Md.millis(r.echoP99()) + " = " + bold(Md.ratio(r.p99Ratio()), r.p99Ratio() <= MAX_P99_RATIO),
                    Md.millis(r.serverP99()) + " (" + Md.runs(r.serverP99Runs(), Md::millis) + ")",
                    Md.millis(r.echoServerP99()),
                    Md.runs(r.queuedP99Runs(), Md::millis)));
        }
        return Md.table(List.of("round", "open-loop rate", "c=8 calls/s simdex / echo (3a)", "open-loop p99 ms simdex / echo (3b)",
                "simdex server p99 ms (runs) (3c)", "echo server p99 ms", "simdex queued p99 ms (runs)"), rows)
                + "\nBold: the round meets the target. Medians of the rounds: c=8 share " + Md.fixed(median(dir, Round::rateShare), 3)
                + ", open-loop p99 ratio " + Md.ratio(median(dir, Round::p99Ratio)) + ", simdex server p99 "
                + Md.millis(median(dir, Round::serverP99)) + " ms.\n";
    }

    @Override
    public List<Target> targets(FigureDir dir) {
        double share = median(dir, Round::rateShare);
        double ratio = median(dir, Round::p99Ratio);
        double server = median(dir, Round::serverP99);
        return List.of(
                new Target("3a", "unary Query at c=8 >= " + Md.count(MIN_RATE_SHARE * 100) + "% of the echo's rate",
                        Md.fixed(share, 3) + " (median round; met in " + met(dir, r -> r.rateShare() >= MIN_RATE_SHARE) + ")",
                        share >= MIN_RATE_SHARE, dir.name()),
                new Target("3b", "open-loop p99 <= " + MAX_P99_RATIO + "x the echo's, at half the echo's c=8 rate",
                        Md.ratio(ratio) + " (median round; met in " + met(dir, r -> r.p99Ratio() <= MAX_P99_RATIO) + ")",
                        ratio <= MAX_P99_RATIO, dir.name()),
                new Target("3c", "server's own handling p99 < 1 ms in the open loop",
                        Md.millis(server) + " ms (median round; met in " + met(dir, r -> r.serverP99() < MAX_SERVER_P99_MICROS) + ")",
                        server < MAX_SERVER_P99_MICROS, dir.name()));
    }

    private static double median(FigureDir dir, ToDoubleFunction<Round> value) {
        List<Double> values = new ArrayList<>();
        for (Round r : rounds(dir)) {
            values.add(value.applyAsDouble(r));
        }
        return Md.median(values);
    }

    private static String met(FigureDir dir, Predicate<Round> meets) {
        List<Round> rounds = rounds(dir);
        return rounds.stream().filter(meets).count() + " of " + Md.counted(rounds.size(), "round");
    }

    private static String bold(String text, boolean met) {
        return met ? "**" + text + "**" : text;
    }
}
