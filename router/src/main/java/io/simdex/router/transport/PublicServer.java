package io.simdex.router.transport;

import io.grpc.BindableService;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.ChannelOption;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.protobuf.services.ProtoReflectionService;
import io.grpc.protobuf.services.ProtoReflectionServiceV1;
import io.simdex.router.security.AuditLog;
import io.simdex.router.security.ServerSecurity;
import io.simdex.server.grpc.ServerBounds;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A gRPC server on a real socket for one service plus the standard health service and server
 * reflection (v1 and v1alpha), so grpcurl and ghz work without the .proto files.
 */
public final class PublicServer implements AutoCloseable {
    /** Largest request accepted: see {@link ServerBounds}. */
    public static final int MAX_MESSAGE_BYTES = ServerBounds.MAX_MESSAGE_BYTES;

    private final Server server;
    private final HealthStatusManager health;
    private final ExecutorService handlers;

    private PublicServer(Server server, HealthStatusManager health, ExecutorService handlers) {
        this.server = server;
        this.health = health;
        this.handlers = handlers;
    }

    /**
     * Starts serving {@code service} named {@code serviceName} on {@code host:port} (port 0 picks
     * a free port), its handlers on one thread per core ({@link HandlerThreads}).
     */
    public static PublicServer start(String host, int port, BindableService service, String serviceName) {
        return start(host, port, service.bindService(), serviceName, List.of(), HandlerThreads.perCore(), null);
    }

    /**
     * As {@link #start(String, int, BindableService, String)}, on {@code threads} handler threads,
     * timing the service's calls in {@code times} (null: not timed).
     */
    public static PublicServer start(String host, int port, ServerServiceDefinition service, String serviceName,
            int threads, HandlingTimes times) {
        return start(host, port, service, serviceName, List.of(), threads, times);
    }

    /** As above, with more services (a cluster router's Admin), timed alike. */
    public static PublicServer start(String host, int port, ServerServiceDefinition service, String serviceName,
            List<ServerServiceDefinition> more, int threads, HandlingTimes times) {
        return start(host, port, service, serviceName, more, threads, Map.of(), times);
    }

    /**
     * As above, handling the requests {@code inline} accepts on the transport thread that read
     * them, every other call on the {@code threads} handler threads ({@link InlineCalls}; with
     * {@code threads} 0, an unbounded pool). Only requests whose handling computes and never waits
     * may be accepted.
     */
    public static PublicServer start(String host, int port, ServerServiceDefinition service, String serviceName,
            List<ServerServiceDefinition> more, int threads, Map<String, Predicate<Object>> inline, HandlingTimes times) {
        return start(host, port, service, serviceName, more, threads, inline, times, ServerSecurity.NONE);
    }

    /**
     * As above, protected by {@code security}: TLS and tokens as it says, and no plaintext beyond
     * loopback unless it allows it ({@link ServerSecurity#checkListen}).
     */
    public static PublicServer start(String host, int port, ServerServiceDefinition service, String serviceName,
            List<ServerServiceDefinition> more, int threads, Map<String, Predicate<Object>> inline, HandlingTimes times,
            ServerSecurity security) {
        security.checkListen(host);
        HealthStatusManager health = new HealthStatusManager();
        // First, so its guard is the innermost interceptor: it sees every handler's failure.
        NettyServerBuilder builder = ServerBounds.apply(NettyServerBuilder.forAddress(new InetSocketAddress(host, port), security.credentials()));
        if (times != null) {
            times.register(service);
            more.forEach(times::register);
            builder.addStreamTracerFactory(times).intercept(HandlingTimes.HANDLER_START);
        }
        ExecutorService handlers = threads == HandlerThreads.UNBOUNDED && !inline.isEmpty()
                ? HandlerThreads.unbounded("simdex-handler") : HandlerThreads.pool(threads, "simdex-handler");
        if (handlers != null && !inline.isEmpty()) {
            // Added last, so it runs first: a call moved to the pool meets HANDLER_START there.
            builder.directExecutor().intercept(new InlineCalls(handlers, inline));
        } else if (handlers != null) {
            builder.executor(handlers);
        }
        more.forEach(s -> builder.addService(ServerBounds.lenient(s)));
        security.install(builder); // the token check runs before every other interceptor but the audit log's
        builder.intercept(new AuditLog()); // last, so it runs first: it logs the calls the token check refuses too
        Server server = builder
                .withChildOption(ChannelOption.RCVBUF_ALLOCATOR, new BurstReads())
                .addService(ServerBounds.lenient(service))
                .addService(health.getHealthService())
                .addService(ProtoReflectionServiceV1.newInstance())
                .addService(ProtoReflectionService.newInstance())
                .build();
        try {
            server.start();
        } catch (IOException e) {
            if (handlers != null) {
                handlers.shutdownNow();
            }
            throw new UncheckedIOException("cannot listen on " + host + ":" + port, e);
        }
        health.setStatus("", ServingStatus.SERVING);
        health.setStatus(serviceName, ServingStatus.SERVING);
        return new PublicServer(server, health, handlers);
    }

    public int port() {
        return server.getPort();
    }

    public void awaitTermination() throws InterruptedException {
        server.awaitTermination();
    }

    /**
     * Reports NOT_SERVING, stops taking calls, waits up to 10 s for calls in flight (then
     * cancels them), and waits for the handlers to finish what the calls left queued.
     */
    @Override
    public void close() {
        health.enterTerminalState();
        server.shutdown();
        try {
            if (!server.awaitTermination(10, TimeUnit.SECONDS)) {
                server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            server.shutdownNow();
        }
        if (handlers != null) {
            HandlerThreads.stop(handlers);
        }
    }
}
