package io.simdex.router;

import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.simdex.proto.v1.HandlingTimesRequest;
import io.simdex.proto.v1.HandlingTimesResponse;
import io.simdex.proto.v1.MethodHandlingTime;
import io.simdex.proto.v1.Probe;
import io.simdex.proto.v1.QueryRequest;
import io.simdex.proto.v1.SimdexGrpc;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The router times its own handling of every call, per method, and can reset. */
class HandlingTimesTest {
    @TempDir
    Path dir;

    @Test
    void handlingTimes_countsEveryCallPerMethod_andResets() throws Exception {
        try (EmbeddedSimdex simdex = EmbeddedSimdex.start(dir, 2, "127.0.0.1", 0, 10_000)) {
            ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", simdex.port()).usePlaintext().build();
            try {
                SimdexGrpc.SimdexBlockingStub stub = SimdexGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS);
                for (int i = 0; i < 50; i++) {
                    stub.query(QueryRequest.newBuilder().addProbes(Probe.newBuilder().setFingerprint(i)).build());
                }
                MethodHandlingTime query = query(stub.handlingTimes(HandlingTimesRequest.newBuilder().setReset(true).build()));
                assertEquals(50, query.getCalls());
                assertTrue(query.getP50Us() > 0 && query.getP50Us() <= query.getP99Us() && query.getP99Us() <= query.getMaxUs(), query.toString());
                assertEquals(0, query(stub.handlingTimes(HandlingTimesRequest.getDefaultInstance())).getCalls(), "reset");
            } finally {
                channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            }
        }
    }

    private static MethodHandlingTime query(HandlingTimesResponse r) {
        return r.getMethodsList().stream().filter(m -> m.getMethod().equals("simdex.v1.Simdex/Query")).findFirst()
                .orElseThrow(() -> new AssertionError("no Query in " + r));
    }
}
