package io.simdex.router.metrics;

import io.grpc.Metadata;
import io.grpc.ServerStreamTracer;
import io.grpc.Status;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * {@code grpc_server_call_duration_seconds}: a histogram per gRPC method ({@code grpc_method},
 * the full name) and status code ({@code grpc_status}), so one meter gives the call rate, the
 * latency percentiles and the error rate by code. A call is timed from the moment its headers
 * reach the server to the moment its stream closes, so the wait for a handler thread is in it,
 * and every ending is counted: cancelled and deadline-exceeded calls too.
 *
 * <p>Installed as a stream tracer ({@code NettyServerBuilder.addStreamTracerFactory}), it times
 * only calls to registered methods: the method name is taken when the server has found the
 * method ({@code serverCallStarted}), so names a client makes up never become series. A server
 * that already runs {@code HandlingTimes} feeds this from it instead (one clock per call).
 *
 * <p>Buckets from 50 us to 30 s: an inline query takes tens of microseconds, a bulk load
 * stream minutes (its calls land in +Inf).
 */
public final class GrpcCallMetrics extends ServerStreamTracer.Factory {
    static final String NAME = "grpc.server.call.duration";
    private static final Duration[] BUCKETS = {
            Duration.ofNanos(50_000), Duration.ofNanos(100_000), Duration.ofNanos(250_000), Duration.ofNanos(500_000),
            Duration.ofMillis(1), Duration.ofMillis(2), Duration.ofMillis(5), Duration.ofMillis(10), Duration.ofMillis(25),
            Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofMillis(250), Duration.ofMillis(500), Duration.ofSeconds(1),
            Duration.ofMillis(2500), Duration.ofSeconds(5), Duration.ofSeconds(10), Duration.ofSeconds(30)};
    private static final Status.Code[] CODES = Status.Code.values();

    private final MeterRegistry registry;
    /** Per method, a timer per status code, made on the code's first call. */
    private final ConcurrentHashMap<String, AtomicReferenceArray<Timer>> byMethod = new ConcurrentHashMap<>();

    GrpcCallMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    /** Records one call of {@code fullMethodName} that ended with {@code code} after {@code nanos}. */
    public void record(String fullMethodName, Status.Code code, long nanos) {
        AtomicReferenceArray<Timer> timers = byMethod.get(fullMethodName);
        if (timers == null) {
            timers = byMethod.computeIfAbsent(fullMethodName, m -> new AtomicReferenceArray<>(CODES.length));
        }
        Timer t = timers.get(code.ordinal());
        if (t == null) {
            t = timer(fullMethodName, code); // the registry returns the one timer for these tags, however many race
            timers.set(code.ordinal(), t);
        }
        t.record(nanos, TimeUnit.NANOSECONDS);
    }

    private Timer timer(String method, Status.Code code) {
        return Timer.builder(NAME)
                .description("gRPC calls handled, from the headers' arrival to the stream's close, by method and status")
                .tag("grpc_method", method)
                .tag("grpc_status", code.name())
                .serviceLevelObjectives(BUCKETS)
                .register(registry);
    }

    @Override
    public ServerStreamTracer newServerStreamTracer(String fullMethodName, Metadata headers) {
        return new CallTimer(System.nanoTime());
    }

    /** One call's clock; gRPC calls streamClosed once per stream, on a transport thread. */
    private final class CallTimer extends ServerStreamTracer {
        private final long start;
        private volatile String method;

        CallTimer(long start) {
            this.start = start;
        }

        @Override
        public void serverCallStarted(ServerCallInfo<?, ?> info) {
            method = info.getMethodDescriptor().getFullMethodName();
        }

        @Override
        public void streamClosed(Status status) {
            String m = method;
            if (m != null) {
                record(m, status.getCode(), System.nanoTime() - start);
            }
        }
    }
}
