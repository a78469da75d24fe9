/**
 * The near-duplicate quality evaluation: precision and recall of "Hamming distance <= k" on a
 * labelled corpus built from this machine's man pages and Chinese fortunes. See
 * {@code loadtest/quality/README.md}; run {@code loadtest/quality/run-eval.sh}.
 *
 * <p>{@link io.simdex.loadtest.quality.Sources} reads the documents ({@code RoffText} strips
 * man pages), {@link io.simdex.loadtest.quality.Corpus} makes the positive pairs with
 * {@link io.simdex.loadtest.quality.Edits} and samples the negatives,
 * {@link io.simdex.loadtest.quality.Evaluation} fingerprints and scores one setting, and
 * {@link io.simdex.loadtest.quality.Report} writes the Markdown.
 *
 * <p>Everything random is seeded, and sources are read in sorted order, so a run is a pure
 * function of the machine's files, the seed and the fingerprinting code.
 */
package io.simdex.loadtest.quality;
