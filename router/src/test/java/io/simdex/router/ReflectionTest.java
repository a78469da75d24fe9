package io.simdex.router;

import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.reflection.v1.ServerReflectionGrpc;
import io.grpc.reflection.v1.ServerReflectionRequest;
import io.grpc.reflection.v1.ServerReflectionResponse;
import io.grpc.stub.StreamObserver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What grpcurl and ghz need without .proto files: server reflection lists and describes the API. */
class ReflectionTest {
    @TempDir
    Path dir;

    @Test
    void reflection_listsServicesAndServesTheSimdexDescriptor() throws Exception {
        try (EmbeddedSimdex simdex = EmbeddedSimdex.start(dir, 2, "127.0.0.1", 0, 10_000)) {
            ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", simdex.port()).usePlaintext().build();
            try {
                ServerReflectionResponse list = ask(channel, ServerReflectionRequest.newBuilder().setListServices("*").build());
                List<String> services = list.getListServicesResponse().getServiceList().stream().map(s -> s.getName()).toList();
                assertTrue(services.containsAll(List.of("simdex.v1.Simdex", "grpc.health.v1.Health")), services.toString());

                ServerReflectionResponse file = ask(channel, ServerReflectionRequest.newBuilder()
                        .setFileContainingSymbol("simdex.v1.Simdex").build());
                assertFalse(file.getFileDescriptorResponse().getFileDescriptorProtoList().isEmpty());
            } finally {
                channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            }
        }
    }

    private static ServerReflectionResponse ask(ManagedChannel channel, ServerReflectionRequest request) throws Exception {
        CompletableFuture<ServerReflectionResponse> answer = new CompletableFuture<>();
        StreamObserver<ServerReflectionRequest> requests = ServerReflectionGrpc.newStub(channel)
                .serverReflectionInfo(Calls.observer(answer));
        requests.onNext(request);
        requests.onCompleted();
        return answer.get(30, TimeUnit.SECONDS);
    }
}
