package io.simdex.loadtest.report;

import java.util.List;

/** A kind of figure: how its result files become a Markdown table and target rows. */
interface Figure {
    /** The table of results, one row per run or round, and a line of medians. */
    String results(FigureDir dir);

    /** The targets this figure decides, in the targets table's order. */
    List<Target> targets(FigureDir dir);
}
