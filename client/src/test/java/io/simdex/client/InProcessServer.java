package io.simdex.client;

import io.grpc.BindableService;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import java.io.IOException;
import java.util.concurrent.TimeUnit;

/** A real gRPC server and channel, in-process, around one service implementation. */
public final class InProcessServer implements AutoCloseable {
    private final Server server;
    private final ManagedChannel channel;

    private InProcessServer(Server server, ManagedChannel channel) {
        this.server = server;
        this.channel = channel;
    }

    public static InProcessServer start(BindableService service) throws IOException {
        String name = InProcessServerBuilder.generateName();
        Server server = InProcessServerBuilder.forName(name).addService(service).build().start();
        return new InProcessServer(server, InProcessChannelBuilder.forName(name).build());
    }

    public ManagedChannel channel() {
        return channel;
    }

    @Override
    public void close() throws InterruptedException {
        channel.shutdownNow();
        server.shutdownNow();
        channel.awaitTermination(5, TimeUnit.SECONDS);
        server.awaitTermination(5, TimeUnit.SECONDS);
    }
}
