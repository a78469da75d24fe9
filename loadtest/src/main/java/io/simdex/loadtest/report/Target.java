package io.simdex.loadtest.report;

/**
 * One row of the targets table: the target's number and wording, the figure's result in words,
 * whether it is met, and the figure that shows it.
 */
record Target(String id, String goal, String result, boolean met, String figure) {
}
