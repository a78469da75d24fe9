/**
 * {@code store-bench}: the server's Chronicle Map bucket store against the ideal index on the
 * same data, in one JVM and one thread: probe rates and their ratio, load rate, bytes per
 * fingerprint. {@link io.simdex.loadtest.store.StoreFixture} is shared with the JMH benchmark.
 */
package io.simdex.loadtest.store;
