package io.simdex.router;

import io.grpc.ForwardingServerCall;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.simdex.proto.v1.HandlingTimesResponse;
import io.simdex.proto.v1.MethodHandlingTime;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The server's own handling time per RPC method: from the moment gRPC hands the call to the
 * service to the moment the response's status is sent, recorded in microseconds. A client's
 * latency minus this is the network and the client; this minus the index's work is queueing.
 */
public final class HandlingTimes implements ServerInterceptor {
    /** Up to an hour, 3 significant digits. */
    private static final long HIGHEST_MICROS = TimeUnit.HOURS.toMicros(1);

    private final ConcurrentHashMap<String, Histogram> byMethod = new ConcurrentHashMap<>();

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
        long start = System.nanoTime();
        Histogram h = byMethod.computeIfAbsent(call.getMethodDescriptor().getFullMethodName(),
                m -> new ConcurrentHistogram(HIGHEST_MICROS, 3));
        return next.startCall(new ForwardingServerCall.SimpleForwardingServerCall<>(call) {
            @Override
            public void close(Status status, Metadata trailers) {
                h.recordValue(Math.min(HIGHEST_MICROS, (System.nanoTime() - start) / 1_000));
                super.close(status, trailers);
            }
        }, headers);
    }

    /** Percentiles per method, sorted by name; {@code reset} starts counting afresh. */
    public HandlingTimesResponse snapshot(boolean reset) {
        HandlingTimesResponse.Builder b = HandlingTimesResponse.newBuilder();
        for (Map.Entry<String, Histogram> e : new TreeMap<>(byMethod).entrySet()) {
            Histogram h = e.getValue().copy();
            if (reset) {
                e.getValue().reset();
            }
            b.addMethods(MethodHandlingTime.newBuilder().setMethod(e.getKey()).setCalls(h.getTotalCount())
                    .setP50Us(h.getValueAtPercentile(50)).setP90Us(h.getValueAtPercentile(90))
                    .setP99Us(h.getValueAtPercentile(99)).setP999Us(h.getValueAtPercentile(99.9))
                    .setMaxUs(h.getMaxValue()));
        }
        return b.build();
    }
}
