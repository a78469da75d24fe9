package io.simdex.loadtest.report;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.function.DoubleFunction;

/** Number formats, medians and Markdown tables, all locale-independent. */
final class Md {
    private Md() {
    }

    /** The median; of an even count, the mean of the middle two. */
    static double median(List<Double> values) {
        if (values.isEmpty()) {
            throw new IllegalArgumentException("median of no values");
        }
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    /** A whole number with thousands separators: 394,221. */
    static String count(double value) {
        return String.format(Locale.ROOT, "%,d", Math.round(value));
    }

    static String fixed(double value, int decimals) {
        return String.format(Locale.ROOT, "%." + decimals + "f", value);
    }

    /** Microseconds as milliseconds with two decimals: 941.1 -> "0.94". */
    static String millis(double micros) {
        return fixed(micros / 1000, 2);
    }

    /** "1 run", "2 runs". */
    static String counted(int n, String noun) {
        return n + " " + noun + (n == 1 ? "" : "s");
    }

    static String ratio(double value) {
        return fixed(value, 2) + "x";
    }

    /** The values joined by " / ", each formatted by {@code format}. */
    static String runs(List<Double> values, DoubleFunction<String> format) {
        List<String> parts = new ArrayList<>();
        for (double v : values) {
            parts.add(format.apply(v));
        }
        return String.join(" / ", parts);
    }

    /** A Markdown table: a header row, then rows of the same width. */
    static String table(List<String> header, List<List<String>> rows) {
        StringBuilder out = new StringBuilder();
        row(out, header);
        List<String> rule = new ArrayList<>();
        for (int i = 0; i < header.size(); i++) {
            rule.add("---");
        }
        row(out, rule);
        for (List<String> r : rows) {
            if (r.size() != header.size()) {
                throw new IllegalStateException("row " + r + " has " + r.size() + " cells, the header " + header.size());
            }
            row(out, r);
        }
        return out.toString();
    }

    private static void row(StringBuilder out, List<String> cells) {
        out.append("| ").append(String.join(" | ", cells)).append(" |\n");
    }
}
