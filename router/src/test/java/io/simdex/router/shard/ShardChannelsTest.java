package io.simdex.router.shard;

import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import io.simdex.proto.v1.ShardGrpc;
import io.simdex.proto.v1.ShardStatsRequest;
import io.simdex.proto.v1.ShardStatsResponse;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The shard channels' service config is found and applied: UNAVAILABLE retried on forTarget, not on forReplica. */
class ShardChannelsTest {
    @Test
    void forTarget_unavailableTwice_retriedUntilAnswered_forReplica_notRetried() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        Server server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)).addService(new ShardGrpc.ShardImplBase() {
            @Override
            public void stats(ShardStatsRequest req, StreamObserver<ShardStatsResponse> out) {
                if (calls.incrementAndGet() % 3 != 0) {
                    out.onError(Status.UNAVAILABLE.withDescription("not yet").asRuntimeException());
                    return;
                }
                out.onNext(ShardStatsResponse.newBuilder().setDocuments(7).build());
                out.onCompleted();
            }
        }).build().start();
        String address = "127.0.0.1:" + server.getPort();
        ManagedChannel retried = ShardChannels.forTarget(address);
        ManagedChannel once = ShardChannels.forReplica(address);
        try {
            ShardStatsRequest req = ShardStatsRequest.newBuilder().setCollection("c").build();
            assertEquals(7, ShardGrpc.newBlockingStub(retried).withDeadlineAfter(30, TimeUnit.SECONDS).stats(req).getDocuments());
            assertEquals(3, calls.get(), "two UNAVAILABLE answers retried, the third call answered");
            assertThrows(io.grpc.StatusRuntimeException.class,
                    () -> ShardGrpc.newBlockingStub(once).withDeadlineAfter(30, TimeUnit.SECONDS).stats(req));
            assertEquals(4, calls.get(), "a replica's channel calls once");
        } finally {
            retried.shutdownNow();
            once.shutdownNow();
            server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }
}
