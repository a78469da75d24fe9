package io.simdex.loadtest.report;

import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * An SVG of the unary rounds, in order: simdex's open-loop p99 against 1.5 times the echo's
 * (target 3b is met where the first is below the second) and simdex's server p99 against 1 ms
 * (target 3c). One line per round set shows the spread between rounds that a median hides.
 */
final class UnaryPlot {
    private static final int WIDTH = 720;
    private static final int HEIGHT = 340;
    private static final int LEFT = 50;
    private static final int RIGHT = 190;
    private static final int TOP = 20;
    private static final int BOTTOM = 40;

    private UnaryPlot() {
    }

    static String svg(List<UnaryFigure.Round> rounds) {
        double maxMs = 1;
        for (UnaryFigure.Round r : rounds) {
            maxMs = Math.max(maxMs, Math.max(r.simdexP99(), r.echoP99() * UnaryFigure.MAX_P99_RATIO) / 1000);
        }
        maxMs = Math.ceil(maxMs * 2) / 2;
        StringBuilder svg = new StringBuilder();
        svg.append(String.format(Locale.ROOT, "<svg xmlns='http://www.w3.org/2000/svg' width='%d' height='%d' "
                + "font-family='sans-serif' font-size='12'>%n<rect width='100%%' height='100%%' fill='white'/>%n", WIDTH, HEIGHT));
        axes(svg, rounds.size(), maxMs);
        series(svg, rounds, maxMs, r -> r.simdexP99() / 1000, "#d62728", "", 0, "simdex client p99");
        series(svg, rounds, maxMs, r -> r.echoP99() * UnaryFigure.MAX_P99_RATIO / 1000, "#1f77b4", "6,4", 1, "1.5 x echo client p99");
        series(svg, rounds, maxMs, r -> r.serverP99() / 1000, "#2ca02c", "", 2, "simdex server p99");
        double oneMs = y(1, maxMs);
        svg.append(String.format(Locale.ROOT, "<line x1='%d' y1='%.1f' x2='%d' y2='%.1f' stroke='#888' stroke-dasharray='2,3'/>%n",
                LEFT, oneMs, WIDTH - RIGHT, oneMs));
        legend(svg, 3, "#888", "2,3", "1 ms (target 3c)");
        svg.append("</svg>\n");
        return svg.toString();
    }

    private static void axes(StringBuilder svg, int count, double maxMs) {
        int bottom = HEIGHT - BOTTOM;
        svg.append(String.format(Locale.ROOT, "<line x1='%d' y1='%d' x2='%d' y2='%d' stroke='black'/>%n", LEFT, bottom, WIDTH - RIGHT, bottom));
        svg.append(String.format(Locale.ROOT, "<line x1='%d' y1='%d' x2='%d' y2='%d' stroke='black'/>%n", LEFT, TOP, LEFT, bottom));
        for (double ms = 0; ms <= maxMs + 1e-9; ms += 0.5) {
            svg.append(String.format(Locale.ROOT, "<text x='%d' y='%.1f' text-anchor='end'>%.1f</text>%n", LEFT - 6, y(ms, maxMs) + 4, ms));
        }
        for (int i = 0; i < count; i++) {
            svg.append(String.format(Locale.ROOT, "<text x='%.1f' y='%d' text-anchor='middle'>%d</text>%n", x(i, count), bottom + 16, i + 1));
        }
        svg.append(String.format(Locale.ROOT, "<text x='%d' y='%d' text-anchor='middle'>round</text>%n", (LEFT + WIDTH - RIGHT) / 2, HEIGHT - 6));
        svg.append(String.format(Locale.ROOT, "<text x='12' y='%d' transform='rotate(-90 12 %d)' text-anchor='middle'>ms</text>%n",
                (TOP + bottom) / 2, (TOP + bottom) / 2));
    }

    private static void series(StringBuilder svg, List<UnaryFigure.Round> rounds, double maxMs, ToDoubleFunction<UnaryFigure.Round> ms,
                               String colour, String dash, int slot, String label) {
        StringBuilder points = new StringBuilder();
        for (int i = 0; i < rounds.size(); i++) {
            double px = x(i, rounds.size());
            double py = y(ms.applyAsDouble(rounds.get(i)), maxMs);
            points.append(String.format(Locale.ROOT, "%.1f,%.1f ", px, py));
            svg.append(String.format(Locale.ROOT, "<circle cx='%.1f' cy='%.1f' r='3' fill='%s'/>%n", px, py, colour));
        }
        svg.append(String.format(Locale.ROOT, "<polyline points='%s' fill='none' stroke='%s' stroke-width='2' stroke-dasharray='%s'/>%n",
                points.toString().strip(), colour, dash));
        legend(svg, slot, colour, dash, label);
    }

    private static void legend(StringBuilder svg, int slot, String colour, String dash, String label) {
        int ly = TOP + 10 + slot * 20;
        int lx = WIDTH - RIGHT + 12;
        svg.append(String.format(Locale.ROOT, "<line x1='%d' y1='%d' x2='%d' y2='%d' stroke='%s' stroke-width='2' stroke-dasharray='%s'/>"
                + "<text x='%d' y='%d'>%s</text>%n", lx, ly, lx + 28, ly, colour, dash, lx + 34, ly + 4, label));
    }

    private static double x(int index, int count) {
        double span = WIDTH - RIGHT - LEFT - 20;
        return LEFT + 10 + (count == 1 ? span / 2 : span * index / (count - 1));
    }

    private static double y(double ms, double maxMs) {
        return HEIGHT - BOTTOM - (HEIGHT - BOTTOM - TOP) * ms / maxMs;
    }
}
