package io.simdex.router.transport;

import io.grpc.Context;
import io.grpc.ForwardingServerCallListener;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.ServerStreamTracer;
import io.grpc.Status;
import io.simdex.proto.v1.HandlingTimesResponse;
import io.simdex.proto.v1.MethodHandlingTime;
import io.simdex.router.metrics.GrpcCallMetrics;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

import java.net.SocketAddress;
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
 * index's work is queueing. The queueing is also reported by itself ({@code queued_*}): from the
 * headers to the moment the method's handler is invoked on a handler thread, so a slow tail can
 * be told apart from slow work. For a unary call that moment is its half-close, the last of the
 * hops gRPC makes to the handler pool; for a client-streaming call it is the call's start.
 * A call handled on the transport thread ({@link InlineCalls}) has no hop; but while that thread
 * runs one call, the next call's headers wait unread, and that wait is in no server-side time:
 * only the client's latency shows it.
 *
 * <p>A call that takes long is logged with what it asked for ({@link SlowCalls}), from the same
 * clock.
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
    /** Methods with a call ended since the server started. */
    private final ConcurrentHashMap<String, Method> byMethod = new ConcurrentHashMap<>();
    /** Where each call's time and status also go (the Prometheus metrics), or null. */
    private volatile GrpcCallMetrics publish;
    private volatile SlowCalls slowCalls = SlowCalls.fromSystemProperty();

    /** The call's timer, in the context its handler runs in. */
    private static final Context.Key<Timer> TIMER = Context.key("simdex-handling-timer");

    /** Notes when each timed call's handler is invoked; install it with the tracer, as {@link PublicServer} does. */
    public static final ServerInterceptor HANDLER_START = new ServerInterceptor() {
        @Override
        public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
            Timer timer = TIMER.get();
            if (timer == null) {
                return next.startCall(call, headers);
            }
            timer.peer = call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR);
            if (!call.getMethodDescriptor().getType().clientSendsOneMessage()) {
                timer.handlerStarted(); // a client stream's handler is invoked now, by startCall
                return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(next.startCall(call, headers)) {
                    @Override
                    public void onMessage(Q message) {
                        timer.received(message, true);
                        super.onMessage(message);
                    }
                };
            }
            return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(next.startCall(call, headers)) {
                @Override
                public void onMessage(Q message) {
                    timer.received(message, false);
                    super.onMessage(message);
                }

                @Override
                public void onHalfClose() {
                    timer.handlerStarted(); // a unary or server-streaming handler is invoked here
                    super.onHalfClose();
                }
            };
        }
    };

    /**
     * Also records each call's handling time and status code in {@code metrics} from now on: one
     * clock per call for both this RPC's percentiles and the scraped histograms.
     */
    public void publishTo(GrpcCallMetrics metrics) {
        this.publish = metrics;
    }

    /** Logs slow calls to {@code log} instead of the process's slow-call log. */
    void logSlowCallsTo(SlowCalls log) {
        this.slowCalls = log;
    }

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
        return new Timer(this, fullMethodName, start);
    }

    /**
     * Percentiles per method called since the start, sorted by name; {@code reset} starts
     * counting afresh. Lossless: a call that ends during a snapshot counts in this one or the next.
     */
    public synchronized HandlingTimesResponse snapshot(boolean reset) {
        HandlingTimesResponse.Builder b = HandlingTimesResponse.newBuilder();
        for (Map.Entry<String, Method> e : new TreeMap<>(byMethod).entrySet()) {
            Method m = e.getValue();
            Histogram h = m.handling.sinceReset();
            Histogram q = m.queued.sinceReset();
            b.addMethods(MethodHandlingTime.newBuilder().setMethod(e.getKey()).setCalls(h.getTotalCount())
                    .setP50Us(h.getValueAtPercentile(50)).setP90Us(h.getValueAtPercentile(90))
                    .setP99Us(h.getValueAtPercentile(99)).setP999Us(h.getValueAtPercentile(99.9))
                    .setMaxUs(h.getMaxValue())
                    .setQueuedP50Us(q.getValueAtPercentile(50)).setQueuedP99Us(q.getValueAtPercentile(99))
                    .setQueuedP999Us(q.getValueAtPercentile(99.9)).setQueuedMaxUs(q.getMaxValue()));
            if (reset) {
                h.reset();
                q.reset();
            }
        }
        return b.build();
    }

    /** One method's times: arrival to stream close, and arrival to the handler's invocation. */
    private static final class Method {
        final Times handling = new Times();
        final Times queued = new Times();
    }

    /**
     * Calls record into the recorder without locks; a snapshot swaps its interval out atomically
     * (HdrHistogram's Recorder) and adds it to the times since the last reset, so a reset never
     * drops a call recorded between reading and clearing.
     */
    private static final class Times {
        private final Recorder recorder = new Recorder(HIGHEST_MICROS, 3);
        /** Guarded by the snapshot's lock. */
        private final Histogram sinceReset = new Histogram(HIGHEST_MICROS, 3);

        void recordNanos(long nanos) {
            recorder.recordValue(Math.min(HIGHEST_MICROS, nanos / 1_000));
        }

        /** Everything recorded since the last reset; the caller holds the snapshot's lock. */
        Histogram sinceReset() {
            sinceReset.add(recorder.getIntervalHistogram());
            return sinceReset;
        }
    }

    /**
     * One call's clock. It rides in the call's context to {@link #HANDLER_START}; gRPC calls
     * {@code streamClosed} once per stream, also for a call cancelled before its handler ran.
     * Both of a call's times are recorded when it ends, so that both percentiles are over the
     * same calls: a HandlingTimes call is not in its own answer.
     */
    private static final class Timer extends ServerStreamTracer {
        private final HandlingTimes owner;
        private final String name;
        private final long start;
        /** From the headers to the handler's invocation; -1 until then (a call cancelled before it has none). */
        private volatile long queuedNanos = -1;
        /** The caller, for the slow-call log. */
        private volatile SocketAddress peer;
        /**
         * The call's first request, for the slow-call log: a unary call's itself (it lives as long
         * as the call anyway), a stream's described at once, so a long stream holds no batch.
         */
        private volatile Object request;
        private volatile int messages;

        Timer(HandlingTimes owner, String name, long start) {
            this.owner = owner;
            this.name = name;
            this.start = start;
        }

        @Override
        public Context filterContext(Context context) {
            return context.withValue(TIMER, this);
        }

        /** On the handler thread, which gRPC serializes per call. */
        void received(Object message, boolean stream) {
            if (messages++ == 0) {
                request = stream ? SlowCalls.describe(message) : message;
            }
        }

        /** Once per call, on the handler thread (gRPC serializes a call's listener callbacks). */
        void handlerStarted() {
            if (queuedNanos < 0) {
                queuedNanos = System.nanoTime() - start;
            }
        }

        @Override
        public void streamClosed(Status status) {
            long nanos = System.nanoTime() - start;
            Method method = owner.byMethod.computeIfAbsent(name, m -> new Method());
            method.handling.recordNanos(nanos);
            long queued = queuedNanos;
            if (queued >= 0) {
                method.queued.recordNanos(queued);
            }
            GrpcCallMetrics metrics = owner.publish;
            if (metrics != null) {
                metrics.record(name, status.getCode(), nanos);
            }
            SlowCalls slow = owner.slowCalls;
            if (slow.isSlow(nanos)) {
                slow.log(name, status, nanos, queued, peer, request, messages);
            }
        }
    }
}
