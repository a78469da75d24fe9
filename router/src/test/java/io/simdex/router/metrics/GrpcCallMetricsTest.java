package io.simdex.router.metrics;

import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import io.simdex.proto.v1.QueryRequest;
import io.simdex.proto.v1.QueryResponse;
import io.simdex.proto.v1.ShardGrpc;
import io.simdex.proto.v1.SimdexGrpc;
import io.simdex.proto.v1.StatsRequest;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * As a stream tracer on a server of its own (a shard node's way): calls to registered methods
 * are timed by status, a method the server does not have never becomes a series.
 */
class GrpcCallMetricsTest {
    private static final String COUNT = "grpc_server_call_duration_seconds_count";

    @Test
    void tracer_timesRegisteredMethodsByStatus_only() throws Exception {
        SimdexGrpc.SimdexImplBase service = new SimdexGrpc.SimdexImplBase() {
            @Override
            public void query(QueryRequest req, StreamObserver<QueryResponse> out) {
                if (req.getProbesCount() == 0) {
                    out.onError(Status.INVALID_ARGUMENT.withDescription("no probes").asRuntimeException());
                    return;
                }
                out.onNext(QueryResponse.getDefaultInstance());
                out.onCompleted();
            }
        };
        try (MetricsEndpoint metrics = MetricsEndpoint.start("127.0.0.1", 0)) {
            Server server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                    .addStreamTracerFactory(metrics.grpcCalls()).addService(service).build().start();
            ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext().build();
            try {
                SimdexGrpc.SimdexBlockingStub stub = SimdexGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS);
                stub.query(QueryRequest.newBuilder().addProbes(io.simdex.proto.v1.Probe.newBuilder().setFingerprint(1)).build());
                assertThrows(StatusRuntimeException.class, () -> stub.query(QueryRequest.getDefaultInstance()));
                assertThrows(StatusRuntimeException.class, () -> stub.stats(StatsRequest.getDefaultInstance())); // UNIMPLEMENTED by the service
                StatusRuntimeException unknown = assertThrows(StatusRuntimeException.class, () -> ShardGrpc.newBlockingStub(channel)
                        .withDeadlineAfter(30, TimeUnit.SECONDS).stats(io.simdex.proto.v1.ShardStatsRequest.getDefaultInstance()));
                assertEquals(Status.Code.UNIMPLEMENTED, unknown.getStatus().getCode());

                String query = SimdexGrpc.getQueryMethod().getFullMethodName();
                String stats = SimdexGrpc.getStatsMethod().getFullMethodName();
                Scrape s = Scrape.awaitCalls(metrics.port(), stats, "UNIMPLEMENTED", 1);
                assertEquals(1, s.value(COUNT, Map.of("grpc_method", query, "grpc_status", "OK")));
                assertEquals(1, s.value(COUNT, Map.of("grpc_method", query, "grpc_status", "INVALID_ARGUMENT")));
                assertFalse(s.samples().stream().anyMatch(x -> x.labels().getOrDefault("grpc_method", "").startsWith(ShardGrpc.SERVICE_NAME)),
                        "a method the server does not have is no series");
            } finally {
                channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
                server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            }
        }
    }
}
