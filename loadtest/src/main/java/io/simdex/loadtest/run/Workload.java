package io.simdex.loadtest.run;

import com.google.common.util.concurrent.ListenableFuture;

/** One kind of call the load loops repeat. Implementations are thread-safe. */
public interface Workload {
    /** Starts call number {@code seq} (0, 1, 2, ...); the future completes with its response or status. */
    ListenableFuture<?> call(long seq);

    /** Probes or documents per call: items/s = calls/s times this. */
    int itemsPerCall();
}
