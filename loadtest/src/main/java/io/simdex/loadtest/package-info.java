/**
 * The simdex measurement harness, run as {@code bin/simdex-loadtest} (see loadtest/README.md).
 *
 * <ul>
 *   <li>{@code gen}: deterministic data: stored fingerprint i of a seed is a function of (seed, i)
 *       ({@link io.simdex.loadtest.gen.Fingerprints}), so the loader, the query workload and the
 *       files agree without sharing state; JSONL and ghz call-data files.</li>
 *   <li>{@code run}: the load generator ({@code run} package), closed loop at a concurrency or
 *       open loop at a rate with latency from each call's due time; {@code sweep} plots latency
 *       against throughput; {@code load} loads the stored set; {@code serve} runs a server in its
 *       own JVM.</li>
 *   <li>{@code echo}: the gRPC floor, the same API answering without work.</li>
 *   <li>{@code ideal}: the block-table index as plain arrays, the bar the store is measured against
 *       by {@code store-bench} ({@code store} package).</li>
 *   <li>{@code jmh}: microbenchmarks, run through the {@code jmh} subcommand.</li>
 * </ul>
 * Everything only ever talks to loopback addresses.
 */
package io.simdex.loadtest;
