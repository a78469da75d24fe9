/**
 * {@code report}: writes {@code loadtest/REPORT.md} from the result files under
 * {@code loadtest/results/}. Each figure is a directory there: {@code figure.properties} (what it
 * measures), {@code measured.properties} (date, code, machine and the exact commands, written by
 * {@code bin/measure-report}) and the JSON that {@code run}, {@code load} and {@code store-bench}
 * wrote. The prose lives in {@code results/report-template.md}; the generator fills its
 * {@code {{figure:NAME}}} and {@code {{targets}}} placeholders and draws the unary rounds' plot.
 * The output depends only on those files, so two runs without new results write the same bytes.
 */
package io.simdex.loadtest.report;
