/**
 * A userspace TCP delay proxy: the network latency {@code tc qdisc ... netem delay} adds, for
 * kernels without {@code sch_netem}.
 *
 * <p>{@link io.simdex.loadtest.proxy.DelayProxy} accepts connections on a loopback address and
 * opens one to its target for each. {@link io.simdex.loadtest.proxy.DelayedPipe} carries one
 * direction: a reader stamps each chunk it reads with a due time (read time plus the delay) and
 * queues it; a writer sends chunks in queue order, each no earlier than its due time. So every
 * byte arrives at least the delay late, never out of order, and the proxy sends nothing of its
 * own: a request and its answer cost exactly one more round trip of twice the delay, like netem
 * on both ends of a link. The TCP handshake is not delayed (a connection is set up once).
 */
package io.simdex.loadtest.proxy;
