package io.simdex.loadtest.run;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * A self-contained HTML page (inline SVG, no scripts) plotting latency percentiles against the
 * throughput achieved, one colour per target: where a curve turns upward is the knee, the highest
 * rate the target sustains at an acceptable latency. Latency is on a log scale.
 */
final class SweepPlot {
    private static final int WIDTH = 860;
    private static final int HEIGHT = 500;
    private static final int LEFT = 80;
    private static final int RIGHT = 230;
    private static final int TOP = 40;
    private static final int BOTTOM = 60;
    private static final String[] COLOURS = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd"};
    private static final String[] PERCENTILES = {"p50", "p99", "p99.9"};
    private static final String[] DASHES = {"", "6,4", "2,3"};

    private SweepPlot() {
    }

    static String html(String title, Map<String, List<RunResult>> series) {
        double maxX = 1;
        double minY = Double.MAX_VALUE;
        double maxY = 1;
        for (List<RunResult> runs : series.values()) {
            for (RunResult r : runs) {
                maxX = Math.max(maxX, r.requestsPerSecond());
                minY = Math.min(minY, Math.max(1, r.latencyMicros().p50()));
                maxY = Math.max(maxY, r.latencyMicros().p999());
            }
        }
        double step = niceStep(maxX * 1.05 / 5);
        Axes axes = new Axes(Math.ceil(maxX * 1.05 / step) * step, step, Math.floor(Math.log10(Math.min(minY, maxY))), Math.ceil(Math.log10(maxY)));
        StringBuilder svg = new StringBuilder();
        svg.append(String.format(Locale.ROOT, "<svg xmlns='http://www.w3.org/2000/svg' width='%d' height='%d' font-family='sans-serif' font-size='12'>%n", WIDTH, HEIGHT));
        axes.draw(svg);
        int s = 0;
        for (Map.Entry<String, List<RunResult>> e : series.entrySet()) {
            String colour = COLOURS[s % COLOURS.length];
            for (int p = 0; p < PERCENTILES.length; p++) {
                line(svg, axes, e.getValue(), percentile(p), colour, DASHES[p]);
                int y = TOP + 10 + (s * PERCENTILES.length + p) * 18;
                svg.append(String.format(Locale.ROOT, "<line x1='%d' y1='%d' x2='%d' y2='%d' stroke='%s' stroke-width='2' stroke-dasharray='%s'/>"
                                + "<text x='%d' y='%d'>%s %s</text>%n", WIDTH - RIGHT + 10, y, WIDTH - RIGHT + 40, y, colour, DASHES[p],
                        WIDTH - RIGHT + 45, y + 4, escape(e.getKey()), PERCENTILES[p]));
            }
            s++;
        }
        svg.append("</svg>\n");
        return "<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>" + escape(title) + "</title></head><body>\n<h2>"
                + escape(title) + "</h2>\n" + svg + table(series) + "</body></html>\n";
    }

    /** 1, 2 or 5 times a power of ten, at least {@code raw}: round tick steps. */
    static double niceStep(double raw) {
        double decade = Math.pow(10, Math.floor(Math.log10(raw)));
        for (double m : new double[]{1, 2, 5}) {
            if (m * decade >= raw) {
                return m * decade;
            }
        }
        return 10 * decade;
    }

    private static ToDoubleFunction<RunResult> percentile(int p) {
        return switch (p) {
            case 0 -> r -> r.latencyMicros().p50();
            case 1 -> r -> r.latencyMicros().p99();
            default -> r -> r.latencyMicros().p999();
        };
    }

    private static void line(StringBuilder svg, Axes axes, List<RunResult> runs, ToDoubleFunction<RunResult> y, String colour, String dash) {
        StringBuilder points = new StringBuilder();
        for (RunResult r : runs) {
            double px = axes.x(r.requestsPerSecond());
            double py = axes.y(y.applyAsDouble(r));
            points.append(String.format(Locale.ROOT, "%.1f,%.1f ", px, py));
            svg.append(String.format(Locale.ROOT, "<circle cx='%.1f' cy='%.1f' r='3' fill='%s'/>%n", px, py, colour));
        }
        svg.append(String.format(Locale.ROOT, "<polyline fill='none' stroke='%s' stroke-width='2' stroke-dasharray='%s' points='%s'/>%n",
                colour, dash, points.toString().strip()));
    }

    private static String table(Map<String, List<RunResult>> series) {
        StringBuilder t = new StringBuilder("<table border='1' cellpadding='4' style='border-collapse:collapse'>\n"
                + "<tr><th>target</th><th>rate asked</th><th>calls/s</th><th>items/s</th><th>p50 us</th><th>p90 us</th>"
                + "<th>p99 us</th><th>p99.9 us</th><th>max us</th><th>errors</th></tr>\n");
        series.forEach((name, runs) -> runs.forEach(r -> t.append(String.format(Locale.ROOT,
                "<tr><td>%s</td><td>%.0f</td><td>%.0f</td><td>%.0f</td><td>%.0f</td><td>%.0f</td><td>%.0f</td><td>%.0f</td><td>%.0f</td><td>%d</td></tr>%n",
                escape(name), r.targetRate(), r.requestsPerSecond(), r.itemsPerSecond(), r.latencyMicros().p50(), r.latencyMicros().p90(),
                r.latencyMicros().p99(), r.latencyMicros().p999(), r.latencyMicros().max(), r.errors()))));
        return t.append("</table>\n").toString();
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("'", "&#39;");
    }

    /** Linear x from 0 in ticks of {@code stepX}, log10 y between two decades. */
    private record Axes(double maxX, double stepX, double minDecade, double maxDecade) {
        double x(double v) {
            return LEFT + v / maxX * (WIDTH - LEFT - RIGHT);
        }

        double y(double micros) {
            double top = Math.max(maxDecade, minDecade + 1);
            double f = (Math.log10(Math.max(micros, Math.pow(10, minDecade))) - minDecade) / (top - minDecade);
            return HEIGHT - BOTTOM - f * (HEIGHT - TOP - BOTTOM);
        }

        void draw(StringBuilder svg) {
            int x0 = LEFT;
            int y0 = HEIGHT - BOTTOM;
            svg.append(String.format(Locale.ROOT, "<line x1='%d' y1='%d' x2='%d' y2='%d' stroke='black'/>"
                    + "<line x1='%d' y1='%d' x2='%d' y2='%d' stroke='black'/>%n", x0, y0, WIDTH - RIGHT, y0, x0, y0, x0, TOP));
            for (double v = 0; v <= maxX + stepX / 2; v += stepX) {
                svg.append(String.format(Locale.ROOT, "<text x='%.1f' y='%d' text-anchor='middle'>%,.0f</text>%n", x(v), y0 + 18, v));
            }
            for (double d = minDecade; d <= Math.max(maxDecade, minDecade + 1); d++) {
                double v = Math.pow(10, d);
                svg.append(String.format(Locale.ROOT, "<line x1='%d' y1='%.1f' x2='%d' y2='%.1f' stroke='#ddd'/>"
                        + "<text x='%d' y='%.1f' text-anchor='end'>%,.0f</text>%n", x0, y(v), WIDTH - RIGHT, y(v), x0 - 6, y(v) + 4, v));
            }
            svg.append(String.format(Locale.ROOT, "<text x='%d' y='%d' text-anchor='middle'>throughput achieved (calls/s)</text>%n"
                            + "<text x='18' y='%d' transform='rotate(-90 18 %d)' text-anchor='middle'>latency (us, log scale)</text>%n",
                    (LEFT + WIDTH - RIGHT) / 2, HEIGHT - 15, (TOP + HEIGHT - BOTTOM) / 2, (TOP + HEIGHT - BOTTOM) / 2));
        }
    }
}
