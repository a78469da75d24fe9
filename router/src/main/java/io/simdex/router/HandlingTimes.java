package io.simdex.router;

import io.grpc.Metadata;
import io.grpc.ServerServiceDefinition;
import io.grpc.ServerStreamTracer;
import io.grpc.Status;
import io.simdex.proto.v1.HandlingTimesResponse;
import io.simdex.proto.v1.MethodHandlingTime;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The server's own handling time per RPC method, in microseconds: from the moment the call's
 * headers reach the server's transport to the moment its stream closes. So it includes the
 * wait for a handler thread, which an interceptor (called once the call already has a thread)
 * would miss. A client's latency minus this is the network and the client; this minus the
 * index's work is queueing.
 *
 * <p>Only the methods of the services given to {@link #register} are timed: a stream tracer sees
 * every method name a client sends, and a map keyed by those would grow without bound.
 */
public final class HandlingTimes extends ServerStreamTracer.Factory {
    /** Up to an hour, 3 significant digits. */
    private static final long HIGHEST_MICROS = TimeUnit.HOURS.toMicros(1);
    private static final ServerStreamTracer UNTIMED = new ServerStreamTracer() {
    };

    private final Set<String> timed = ConcurrentHashMap.newKeySet();
    /** Methods called at least once since the server started. */
    private final ConcurrentHashMap<String, Histogram> byMethod = new ConcurrentHashMap<>();

    /** Times the methods of {@code service} from now on. */
    public void register(ServerServiceDefinition service) {
        service.getMethods().forEach(m -> timed.add(m.getMethodDescriptor().getFullMethodName()));
    }

    @Override
    public ServerStreamTracer newServerStreamTracer(String fullMethodName, Metadata headers) {
        long start = System.nanoTime();
        if (!timed.contains(fullMethodName)) {
            return UNTIMED;
        }
        return new Timer(byMethod.computeIfAbsent(fullMethodName, m -> new ConcurrentHistogram(HIGHEST_MICROS, 3)), start);
    }

    /** Percentiles per method called since the start, sorted by name; {@code reset} starts counting afresh. */
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

    /** One call's clock; gRPC calls {@code streamClosed} once per stream. */
    private static final class Timer extends ServerStreamTracer {
        private final Histogram histogram;
        private final long start;

        Timer(Histogram histogram, long start) {
            this.histogram = histogram;
            this.start = start;
        }

        @Override
        public void streamClosed(Status status) {
            histogram.recordValue(Math.min(HIGHEST_MICROS, (System.nanoTime() - start) / 1_000));
        }
    }
}
