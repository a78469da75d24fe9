/**
 * Prometheus metrics through Micrometer: an HTTP {@code /metrics} endpoint per process
 * ({@link io.simdex.router.metrics.MetricsEndpoint}) with the JVM's meters, the gRPC calls'
 * latency histogram by method and status ({@link io.simdex.router.metrics.GrpcCallMetrics}), the
 * store's sizes per collection ({@link io.simdex.router.metrics.StoreMetrics}), the cluster's
 * state ({@link io.simdex.router.metrics.ClusterMetrics}), the sketch verification's work
 * ({@link io.simdex.router.index.SketchReads}) and what Dedup, Query and CheckUrls decided
 * ({@link io.simdex.router.metrics.RequestOutcomes}).
 *
 * <p>Naming. Micrometer names ({@code simdex.documents}) become Prometheus names
 * ({@code simdex_documents}); every simdex meter starts with {@code simdex_}, the gRPC histogram
 * is {@code grpc_server_call_duration_seconds}. Tags are bounded: method names only of registered
 * services, collection and node names only of those that exist.
 *
 * <p>Cost. Nothing on a call's path but one timer update (after the first call of a method and
 * code, no allocation), for text probes two {@code LongAdder} additions, and for a Dedup, Query
 * or CheckUrls call two more (a map lookup each, per call, not per document); store and cluster
 * figures are read once per scrape, not per call.
 */
package io.simdex.router.metrics;
