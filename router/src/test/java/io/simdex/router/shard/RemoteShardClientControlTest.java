package io.simdex.router.shard;

import io.grpc.ConnectivityState;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import io.simdex.proto.v1.NodeStatus;
import io.simdex.proto.v1.NodeStatusRequest;
import io.simdex.proto.v1.ShardControlGrpc;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link RemoteShardClient#control()} against a node that went away and came back on the same address. */
class RemoteShardClientControlTest {
    private static final NodeStatusRequest STATUS = NodeStatusRequest.getDefaultInstance();
    private final List<Server> servers = new ArrayList<>();
    private final List<ResetCountingChannel> channels = new ArrayList<>();

    @AfterEach
    void close() {
        servers.forEach(Server::shutdownNow);
        channels.forEach(ResetCountingChannel::shutdownNow);
    }

    @Test
    void control_ofANodeRestartedWhileItsChannelBacksOff_reconnectsAndWaitsForIt() throws Exception {
        Server first = node("first", 0);
        int port = first.getPort();
        ResetCountingChannel channel = new ResetCountingChannel(ShardChannels.forReplica("127.0.0.1:" + port));
        channels.add(channel);
        RemoteShardClient client = new RemoteShardClient(channel);
        assertEquals("first", client.control().withDeadlineAfter(10, TimeUnit.SECONDS).status(STATUS).getNodeId());

        first.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
        awaitState(channel, ConnectivityState.TRANSIENT_FAILURE);
        long resetsBefore = channel.resets.sum();
        ShardControlGrpc.ShardControlBlockingStub control = client.control();
        assertTrue(channel.resets.sum() > resetsBefore, "the channel backing off was told to reconnect");
        // What the control calls were: they failed at once, on the connection's error.
        StatusRuntimeException failFast = assertThrows(StatusRuntimeException.class,
                () -> ShardControlGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS).status(STATUS));
        assertEquals(Status.Code.UNAVAILABLE, failFast.getStatus().getCode(), failFast.toString());

        // Sent while the node is still away, the call waits; the node comes back on its address.
        CompletableFuture<NodeStatus> call = CompletableFuture.supplyAsync(() -> control.withDeadlineAfter(30, TimeUnit.SECONDS).status(STATUS));
        node("second", port);
        assertEquals("second", call.get(60, TimeUnit.SECONDS).getNodeId());
    }

    /** Waits (polling, up to 20 s) until {@code channel} is in {@code state}. */
    private static void awaitState(ResetCountingChannel channel, ConnectivityState state) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (channel.getState(true) != state) {
            assertTrue(System.nanoTime() - deadline < 0, "channel still " + channel.getState(false) + ", waiting for " + state);
            Thread.sleep(10); // polls a condition: the channel's state
        }
    }

    /** A node whose control service answers Status with {@code id}, on {@code port} (0: any). */
    private Server node(String id, int port) throws IOException {
        Server server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", port)).addService(new ShardControlGrpc.ShardControlImplBase() {
            @Override
            public void status(NodeStatusRequest req, StreamObserver<NodeStatus> out) {
                out.onNext(NodeStatus.newBuilder().setNodeId(id).build());
                out.onCompleted();
            }
        }).build().start();
        servers.add(server);
        return server;
    }
}
