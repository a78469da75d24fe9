package io.simdex.server.grpc;

import com.google.protobuf.MessageLite;
import io.grpc.ForwardingServerCall;
import io.grpc.ForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Admits at most {@code maxCalls} calls at once and {@code maxBytes} bytes of requests being
 * handled (RESOURCE_EXHAUSTED beyond either, before the handler sees the message, so nothing is
 * written), and turns every
 * failure that is not the caller's into INTERNAL "internal error, request id HEX", logging the
 * stack trace under the same id: an INTERNAL or UNKNOWN status a handler closes with, an
 * exception a handler throws (gRPC would answer UNKNOWN "Application error processing RPC" and
 * log nothing), and an Error such as OutOfMemoryError. A request body that would not parse
 * ({@link ServerBounds#lenient} hands it on as null) is answered INVALID_ARGUMENT.
 *
 * <p>A request's bytes are its serialized size (protobuf's, memoized; the size a compressed
 * request takes once inflated, which is what the heap holds). A call that sends one message holds
 * its bytes until it ends, since its handler may keep the request until it answers; a streaming
 * call holds each message's bytes while its handler's onMessage runs. A request is admitted when
 * it fits in the budget or when no other request bytes are held, so one request up to
 * {@link ServerBounds#MAX_MESSAGE_BYTES} always gets through on an idle server.
 */
public final class CallGuard implements ServerInterceptor {
    private static final Logger LOG = LoggerFactory.getLogger(CallGuard.class);
    /** The description prefix of every INTERNAL this guard sends. */
    public static final String INTERNAL_PREFIX = "internal error, request id ";

    private final int maxCalls;
    private final long maxBytes;
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicLong bytes = new AtomicLong();

    /** No bound on request bytes. */
    public CallGuard(int maxCalls) {
        this(maxCalls, Long.MAX_VALUE);
    }

    public CallGuard(int maxCalls, long maxBytes) {
        this.maxCalls = maxCalls;
        this.maxBytes = maxBytes;
    }

    /** Bytes of requests held by calls now. */
    public long bytesHeld() {
        return bytes.get();
    }

    /** Takes {@code size} bytes of the budget, or returns false and takes nothing. */
    private boolean reserve(long size) {
        long now = bytes.addAndGet(size);
        if (now > maxBytes && now != size) {
            bytes.addAndGet(-size);
            return false;
        }
        return true;
    }

    /** Calls admitted and not yet finished. */
    public int inFlight() {
        return inFlight.get();
    }

    @Override
    public <Q, A> ServerCall.Listener<Q> interceptCall(ServerCall<Q, A> call, Metadata headers, ServerCallHandler<Q, A> next) {
        if (inFlight.incrementAndGet() > maxCalls) {
            inFlight.decrementAndGet();
            call.close(Status.RESOURCE_EXHAUSTED.withDescription("more than " + maxCalls + " calls in flight; retry with backoff"), new Metadata());
            return new ServerCall.Listener<>() {
            };
        }
        Guarded<Q, A> guarded = new Guarded<>(call);
        try {
            return guarded.listen(next.startCall(guarded, headers));
        } catch (RuntimeException | Error e) {
            guarded.fail(e);
            return new ServerCall.Listener<>() {
            };
        }
    }

    /** The call with its failures rewritten, and the listener that releases its slot once. */
    private final class Guarded<Q, A> extends ForwardingServerCall.SimpleForwardingServerCall<Q, A> {
        private final AtomicBoolean released = new AtomicBoolean();
        private volatile boolean closed;
        /** Request bytes this call holds until it ends; its listener's callbacks are serialized. */
        private long held;

        Guarded(ServerCall<Q, A> call) {
            super(call);
        }

        @Override
        public void close(Status status, Metadata trailers) {
            closed = true;
            Status.Code code = status.getCode();
            if (code == Status.Code.INTERNAL || code == Status.Code.UNKNOWN) {
                status = internal(getMethodDescriptor().getFullMethodName() + " closed with " + status, status.getCause());
            }
            super.close(status, trailers);
        }

        /** Closes the call for an exception a handler threw. */
        void fail(Throwable e) {
            if (closed) {
                LOG.error("{}: exception after the call closed", getMethodDescriptor().getFullMethodName(), e);
                return;
            }
            try {
                close(Status.INTERNAL.withCause(e), new Metadata());
            } catch (RuntimeException again) {
                e.addSuppressed(again);
                LOG.error("{}: cannot close the call after an exception", getMethodDescriptor().getFullMethodName(), e);
            }
        }

        void release() {
            if (released.compareAndSet(false, true)) {
                inFlight.decrementAndGet();
                bytes.addAndGet(-held);
            }
        }

        ServerCall.Listener<Q> listen(ServerCall.Listener<Q> delegate) {
            return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(delegate) {
                @Override
                public void onMessage(Q message) {
                    if (closed) {
                        return;
                    }
                    if (message == null) {
                        close(Status.INVALID_ARGUMENT.withDescription("the request message does not parse as "
                                + getMethodDescriptor().getFullMethodName() + "'s request type"), new Metadata());
                        return;
                    }
                    long size = message instanceof MessageLite m ? m.getSerializedSize() : 0;
                    if (!reserve(size)) {
                        close(Status.RESOURCE_EXHAUSTED.withDescription("a request of " + size + " bytes would take the requests in flight"
                                + " past this server's budget of " + maxBytes + " bytes; retry with backoff"), new Metadata());
                        return;
                    }
                    if (getMethodDescriptor().getType().clientSendsOneMessage()) {
                        held += size;
                        guard(() -> super.onMessage(message));
                        return;
                    }
                    try {
                        guard(() -> super.onMessage(message));
                    } finally {
                        bytes.addAndGet(-size);
                    }
                }

                @Override
                public void onHalfClose() {
                    if (!closed) {
                        guard(super::onHalfClose);
                    }
                }

                @Override
                public void onReady() {
                    if (!closed) {
                        guard(super::onReady);
                    }
                }

                @Override
                public void onCancel() {
                    try {
                        super.onCancel();
                    } finally {
                        release();
                    }
                }

                @Override
                public void onComplete() {
                    try {
                        super.onComplete();
                    } finally {
                        release();
                    }
                }
            };
        }

        private void guard(Runnable callback) {
            try {
                callback.run();
            } catch (RuntimeException | Error e) {
                fail(e);
            }
        }
    }

    /**
     * Logs {@code what} and its {@code cause}'s stack under a new request id, and returns the
     * INTERNAL status that names the id to the caller: a failure that is not the caller's, for a
     * call or for a request inside a stream.
     */
    public static Status internal(String what, Throwable cause) {
        String id = Long.toHexString(ThreadLocalRandom.current().nextLong());
        LOG.error("{}{}: {}", INTERNAL_PREFIX, id, what, cause);
        return Status.INTERNAL.withDescription(INTERNAL_PREFIX + id);
    }
}
