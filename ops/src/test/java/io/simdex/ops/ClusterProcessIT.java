package io.simdex.ops;

import com.google.protobuf.UInt32Value;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.simdex.proto.v1.Document;
import io.simdex.proto.v1.InsertRequest;
import io.simdex.proto.v1.Probe;
import io.simdex.proto.v1.QueryRequest;
import io.simdex.proto.v1.StatsRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The same router code over gRPC: three shard processes and a router process on loopback,
 * each serving Prometheus metrics.
 */
class ClusterProcessIT {
    @TempDir
    Path dir;

    @Test
    void routerOverShardProcesses_matchesBruteForce_andShardLossIsUnavailable() throws Exception {
        long[] fps = new SplittableRandom(21).longs(20_000).toArray();
        long[] probes = EmbeddedProcessIT.probes(fps);
        List<SimdexProcess> shards = new ArrayList<>();
        List<String> addresses = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                int port = SimdexProcess.freePort();
                shards.add(SimdexProcess.start(dir.resolve("shard-" + i + ".log"), "shard", "--data", dir.resolve("shard-" + i).toString(),
                        "--port", Integer.toString(port), "--shards", "3", "--expected", "100000", "--metrics-port", "0"));
                addresses.add("127.0.0.1:" + port);
            }
            for (int i = 0; i < 3; i++) {
                shards.get(i).awaitServing(Integer.parseInt(addresses.get(i).split(":")[1]), "simdex.v1.Shard");
            }
            int port = SimdexProcess.freePort();
            try (SimdexProcess router = SimdexProcess.start(dir.resolve("router.log"), "router", "--shard", String.join(",", addresses),
                    "--data", dir.resolve("router").toString(), "--port", Integer.toString(port), "--metrics-port", "0")) {
                router.awaitServing(port, "simdex.v1.Simdex");
                EmbeddedProcessIT.withStub(port, stub -> {
                    for (int from = 0; from < fps.length; from += 5_000) {
                        InsertRequest.Builder req = InsertRequest.newBuilder();
                        for (int i = from; i < from + 5_000; i++) {
                            req.addDocuments(Document.newBuilder().setId("doc-" + i).setFingerprint(fps[i]));
                        }
                        stub.insert(req.build());
                    }
                    assertEquals(fps.length, stub.stats(StatsRequest.getDefaultInstance()).getDocuments());
                    EmbeddedProcessIT.assertMatchesBruteForce(stub, fps, probes);
                    assertMetrics(router, shards, fps.length);

                    // No replicas yet: losing a shard must fail queries clearly, not answer wrongly.
                    shards.get(1).kill9();
                    StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> stub.query(QueryRequest.newBuilder()
                            .setMaxDistance(UInt32Value.of(3)).addProbes(Probe.newBuilder().setFingerprint(probes[0])).build()));
                    assertEquals(Status.Code.UNAVAILABLE, e.getStatus().getCode(), e.getStatus().toString());
                });
                router.stop();
            }
        } finally {
            for (SimdexProcess s : shards) {
                s.close();
            }
        }
    }

    /**
     * The router counts its 4 Inserts; the shards' document gauges add up to every document, and
     * each shard counts the shard calls it served (the router writes ids on every shard).
     */
    private static void assertMetrics(SimdexProcess router, List<SimdexProcess> shards, int documents) {
        String r = Metrics.scrape(Metrics.port(router));
        assertEquals(4, Metrics.value(r, "grpc_server_call_duration_seconds_count{grpc_method=\"simdex.v1.Simdex/Insert\",grpc_status=\"OK\"}"));
        double stored = 0;
        for (SimdexProcess shard : shards) {
            String s = Metrics.scrape(Metrics.port(shard));
            stored += Metrics.value(s, "simdex_documents{collection=\"default\"}");
            double binds = Metrics.value(s, "grpc_server_call_duration_seconds_count{grpc_method=\"simdex.v1.Shard/WriteIds\",grpc_status=\"OK\"}");
            assertTrue(binds >= 1, "WriteIds calls counted on a shard: " + binds);
        }
        assertEquals(documents, stored);
    }
}
