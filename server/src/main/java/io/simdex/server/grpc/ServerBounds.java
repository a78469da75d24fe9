package io.simdex.server.grpc;

import io.grpc.MethodDescriptor;
import io.grpc.ServerMethodDefinition;
import io.grpc.ServerServiceDefinition;
import io.grpc.ServiceDescriptor;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;

import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * The limits every simdex server sets, so that what a caller sends is refused with a status
 * (RESOURCE_EXHAUSTED, INVALID_ARGUMENT) before it can cost the process its heap:
 * <ul>
 *   <li>{@link #MAX_MESSAGE_BYTES} per message: gRPC refuses a bigger one with RESOURCE_EXHAUSTED
 *       before reading it;</li>
 *   <li>{@link #MAX_CALLS} calls in flight on the server ({@link CallGuard}): RESOURCE_EXHAUSTED;</li>
 *   <li>{@link #requestBytes()} bytes of requests being handled ({@link CallGuard}): 10,000 calls of
 *       64 MiB would otherwise be 640 GiB of heap; a request beyond it gets RESOURCE_EXHAUSTED;</li>
 *   <li>{@link #MAX_CALLS_PER_CONNECTION} streams per connection, advertised as HTTP/2
 *       MAX_CONCURRENT_STREAMS: a client's calls beyond it wait in the client.</li>
 * </ul>
 */
public final class ServerBounds {
    /** Largest message a server accepts: a 10,000-document batch of long texts fits, and so does a pull's chunk. */
    public static final int MAX_MESSAGE_BYTES = 64 << 20;
    /** Calls a server holds at once; each holds at most one message of MAX_MESSAGE_BYTES at a time. */
    public static final int MAX_CALLS = 10_000;
    public static final int MAX_CALLS_PER_CONNECTION = 1_000;

    /** The system property that sets {@link #requestBytes()}, in bytes. */
    public static final String REQUEST_BYTES_PROPERTY = "simdex.request.bytes";

    private ServerBounds() {
    }

    /**
     * Bytes of requests a server handles at once: {@code -Dsimdex.request.bytes=N}, by default a
     * quarter of the maximum heap (a request's objects take a few times its bytes while handled).
     */
    public static long requestBytes() {
        Long set = Long.getLong(REQUEST_BYTES_PROPERTY);
        if (set != null && set <= 0) {
            throw new IllegalArgumentException(REQUEST_BYTES_PROPERTY + " must be > 0, was " + set);
        }
        return set != null ? set : Runtime.getRuntime().maxMemory() / 4;
    }

    /** Sets the limits on {@code builder} and installs a {@link CallGuard}; returns the builder. Add it before interceptors that must run first. */
    public static NettyServerBuilder apply(NettyServerBuilder builder) {
        return builder.maxInboundMessageSize(MAX_MESSAGE_BYTES)
                .maxConcurrentCallsPerConnection(MAX_CALLS_PER_CONNECTION)
                .intercept(new CallGuard(MAX_CALLS, requestBytes()));
    }

    /**
     * {@code service} with request parsing that never throws: a body that does not parse reaches
     * the {@link CallGuard} as a null message, which answers INVALID_ARGUMENT (gRPC itself would
     * answer INTERNAL or UNKNOWN, the server's fault, for the caller's bad bytes).
     */
    public static ServerServiceDefinition lenient(ServerServiceDefinition service) {
        ServiceDescriptor old = service.getServiceDescriptor();
        ServiceDescriptor.Builder descriptor = ServiceDescriptor.newBuilder(old.getName()).setSchemaDescriptor(old.getSchemaDescriptor());
        List<ServerMethodDefinition<?, ?>> methods = new ArrayList<>();
        for (ServerMethodDefinition<?, ?> m : service.getMethods()) {
            ServerMethodDefinition<?, ?> lenient = lenient(m);
            methods.add(lenient);
            descriptor.addMethod(lenient.getMethodDescriptor());
        }
        ServerServiceDefinition.Builder b = ServerServiceDefinition.builder(descriptor.build());
        methods.forEach(b::addMethod);
        return b.build();
    }

    private static <Q, A> ServerMethodDefinition<Q, A> lenient(ServerMethodDefinition<Q, A> m) {
        MethodDescriptor<Q, A> d = m.getMethodDescriptor();
        return ServerMethodDefinition.create(d.toBuilder(lenient(d.getRequestMarshaller()), d.getResponseMarshaller()).build(),
                m.getServerCallHandler());
    }

    private static <T> MethodDescriptor.Marshaller<T> lenient(MethodDescriptor.Marshaller<T> m) {
        return new MethodDescriptor.Marshaller<>() {
            @Override
            public InputStream stream(T value) {
                return m.stream(value);
            }

            @Override
            public T parse(InputStream in) {
                try {
                    return m.parse(in);
                } catch (RuntimeException e) {
                    return null;
                }
            }
        };
    }
}
