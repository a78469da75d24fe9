package io.simdex.router;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.simdex.proto.v1.SimdexGrpc;
import io.simdex.router.transport.HandlerThreads;
import io.simdex.router.transport.PublicServer;
import io.simdex.server.Durability;

import java.nio.file.Path;
import java.time.Clock;
import java.util.concurrent.TimeUnit;

/** The embedded default on a real loopback port, with a plaintext client channel. */
public final class TestServer implements AutoCloseable {
    public final EmbeddedSimdex simdex;
    public final ManagedChannel channel;
    private final int deadlineSeconds;

    /** 4 shards sized for 300,000 documents, the system clock. */
    public TestServer(Path dir) {
        this(EmbeddedSimdex.start(dir, 4, "127.0.0.1", 0, 300_000), 120);
    }

    /** 2 small shards; {@code clock} decides which time generations are live. */
    public TestServer(Path dir, Clock clock) {
        this(EmbeddedSimdex.start(dir, 2, "127.0.0.1", 0, 10_000, clock), 60);
    }

    /** As {@link #TestServer(Path, Clock)} with the system clock, acknowledging writes once their log records are forced. */
    public static TestServer fsync(Path dir) {
        return new TestServer(EmbeddedSimdex.start(dir, 2, "127.0.0.1", 0, 10_000, HandlerThreads.perCore(), true, Clock.systemUTC(),
                Durability.FSYNC), 60);
    }

    private TestServer(EmbeddedSimdex simdex, int deadlineSeconds) {
        this.simdex = simdex;
        this.deadlineSeconds = deadlineSeconds;
        channel = NettyChannelBuilder.forAddress("127.0.0.1", simdex.port()).usePlaintext()
                .maxInboundMessageSize(PublicServer.MAX_MESSAGE_BYTES).build();
    }

    /**
     * A stub whose every call has its own deadline: a stub's {@code withDeadlineAfter} would fix
     * one instant for all its calls, so a test's many calls would share it.
     */
    public SimdexGrpc.SimdexBlockingStub stub() {
        return SimdexGrpc.newBlockingStub(channel).withInterceptors(new ClientInterceptor() {
            @Override
            public <Q, A> ClientCall<Q, A> interceptCall(MethodDescriptor<Q, A> method, CallOptions options, Channel next) {
                return next.newCall(method, options.withDeadlineAfter(deadlineSeconds, TimeUnit.SECONDS));
            }
        });
    }

    @Override
    public void close() throws InterruptedException {
        channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        simdex.close();
    }
}
