/**
 * JMH benchmarks, run with {@code bin/simdex-loadtest jmh [REGEX] [JMH options]}: SimHash of
 * English and Chinese text, the Hamming scan kernel over bucket-sized arrays, a query on the
 * store vs the ideal index (1M, or 10M with {@code -p count=10000000}), and the router's
 * in-process query (fan-out, id resolution, merge). Forks inherit the launcher's JVM flags,
 * which Chronicle Map needs on Java 17.
 */
package io.simdex.loadtest.jmh;
