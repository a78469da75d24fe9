package io.simdex.router;

import io.grpc.Metadata;
import io.grpc.ServerServiceDefinition;
import io.grpc.ServerStreamTracer;
import io.grpc.Status;
import io.simdex.proto.v1.HandlingTimesResponse;
import io.simdex.proto.v1.MethodHandlingTime;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

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
    private final ConcurrentHashMap<String, Method> byMethod = new ConcurrentHashMap<>();

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
        return new Timer(byMethod.computeIfAbsent(fullMethodName, m -> new Method()).recorder, start);
    }

    /**
     * Percentiles per method called since the start, sorted by name; {@code reset} starts
     * counting afresh. Lossless: a call that ends during a snapshot counts in this one or the next.
     */
    public synchronized HandlingTimesResponse snapshot(boolean reset) {
        HandlingTimesResponse.Builder b = HandlingTimesResponse.newBuilder();
        for (Map.Entry<String, Method> e : new TreeMap<>(byMethod).entrySet()) {
            Method m = e.getValue();
            m.sinceReset.add(m.recorder.getIntervalHistogram());
            Histogram h = m.sinceReset;
            b.addMethods(MethodHandlingTime.newBuilder().setMethod(e.getKey()).setCalls(h.getTotalCount())
                    .setP50Us(h.getValueAtPercentile(50)).setP90Us(h.getValueAtPercentile(90))
                    .setP99Us(h.getValueAtPercentile(99)).setP999Us(h.getValueAtPercentile(99.9))
                    .setMaxUs(h.getMaxValue()));
            if (reset) {
                h.reset();
            }
        }
        return b.build();
    }

    /**
     * One method's times: calls record into the recorder without locks; a snapshot swaps its
     * interval out atomically (HdrHistogram's Recorder) and adds it to the times since the last
     * reset, so a reset never drops a call recorded between reading and clearing.
     */
    private static final class Method {
        final Recorder recorder = new Recorder(HIGHEST_MICROS, 3);
        /** Guarded by the snapshot's lock. */
        final Histogram sinceReset = new Histogram(HIGHEST_MICROS, 3);
    }

    /** One call's clock; gRPC calls {@code streamClosed} once per stream. */
    private static final class Timer extends ServerStreamTracer {
        private final Recorder recorder;
        private final long start;

        Timer(Recorder recorder, long start) {
            this.recorder = recorder;
            this.start = start;
        }

        @Override
        public void streamClosed(Status status) {
            recorder.recordValue(Math.min(HIGHEST_MICROS, (System.nanoTime() - start) / 1_000));
        }
    }
}
