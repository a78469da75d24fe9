package io.simdex.loadtest.run;

import com.google.common.util.concurrent.Futures;
import com.google.common.util.concurrent.ListenableFuture;
import io.grpc.Status;
import org.HdrHistogram.Recorder;

import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/** Outcomes of one run's calls: latencies of successes in an HdrHistogram, failures counted. */
final class Tally {
    /** Three significant digits: 1 us resolution at 1 ms, 1 ms at 1 s. */
    private static final int DIGITS = 3;

    private final Recorder latency = new Recorder(DIGITS);
    private final Recorder lag = new Recorder(DIGITS);
    private final LongAdder ok = new LongAdder();
    private final LongAdder errors = new LongAdder();
    private final AtomicReference<String> firstError = new AtomicReference<>();

    /** Records call {@code f}, done now, that started (or was meant to start) at {@code fromNanos}. */
    void complete(ListenableFuture<?> f, long fromNanos) {
        long nanos = System.nanoTime() - fromNanos;
        try {
            Futures.getDone(f);
            latency.recordValue(Math.max(0, nanos));
            ok.increment();
        } catch (ExecutionException | CancellationException e) {
            errors.increment();
            firstError.compareAndSet(null, Status.fromThrowable(e.getCause() != null ? e.getCause() : e).toString());
        }
    }

    /** A failure to even start a call. */
    void failed(RuntimeException e) {
        errors.increment();
        firstError.compareAndSet(null, e.toString());
    }

    void lag(long nanos) {
        lag.recordValue(Math.max(0, nanos));
    }

    RunResult result(String mode, int concurrency, double rate, int itemsPerCall, long elapsedNanos) {
        double seconds = elapsedNanos / 1e9;
        long okCount = ok.sum();
        Percentiles lagMicros = rate > 0 ? Percentiles.of(lag.getIntervalHistogram()) : null;
        return new RunResult(mode, concurrency, rate, okCount + errors.sum(), errors.sum(), firstError.get(),
                RunResult.round(seconds), RunResult.round(okCount / seconds), RunResult.round(okCount * (double) itemsPerCall / seconds),
                Percentiles.of(latency.getIntervalHistogram()), lagMicros, null, null);
    }
}
