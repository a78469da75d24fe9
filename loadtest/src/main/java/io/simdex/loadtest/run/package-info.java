/**
 * The gRPC load generator.
 *
 * <p>{@link io.simdex.loadtest.run.LoadLoop} applies load closed (C callers back to back: rate
 * follows the server, latency is service time) or open (a fixed schedule, latency measured from
 * each call's due time, so a stall is charged to every call it delayed). Calls are asynchronous
 * with listeners on the Netty event loop, so a handful of threads drive any concurrency.
 * {@link io.simdex.loadtest.run.Tally} records successes in HdrHistogram, in nanoseconds,
 * reported in microseconds. With {@code --compare}, runs of two targets alternate so that drift
 * on a shared machine hits both.
 *
 * <p>{@link io.simdex.loadtest.run.Target} refuses non-loopback addresses.
 */
package io.simdex.loadtest.run;
