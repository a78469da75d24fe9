package io.simdex.router;

import com.google.protobuf.UInt32Value;
import io.grpc.stub.StreamObserver;
import io.simdex.proto.v1.Document;
import io.simdex.proto.v1.Match;
import io.simdex.proto.v1.Probe;
import io.simdex.proto.v1.QueryRequest;
import io.simdex.proto.v1.SimdexGrpc;
import io.simdex.proto.v1.StatsRequest;
import io.simdex.proto.v1.StatsResponse;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/** Requests and observers the router's tests share. */
public final class Calls {
    private Calls() {
    }

    public static Document doc(String id, long fp) {
        return Document.newBuilder().setId(id).setFingerprint(fp).build();
    }

    public static List<Match> query(SimdexGrpc.SimdexBlockingStub stub, long fp, int k) {
        return stub.query(QueryRequest.newBuilder().setMaxDistance(UInt32Value.of(k))
                .addProbes(Probe.newBuilder().setFingerprint(fp)).build()).getResults(0).getMatchesList();
    }

    public static StatsResponse stats(SimdexGrpc.SimdexBlockingStub stub) {
        return stub.stats(StatsRequest.getDefaultInstance());
    }

    /** An observer that completes {@code done} with the first value or the error. */
    public static <T> StreamObserver<T> observer(CompletableFuture<T> done) {
        return new StreamObserver<>() {
            public void onNext(T value) {
                done.complete(value);
            }

            public void onError(Throwable t) {
                done.completeExceptionally(t);
            }

            public void onCompleted() {
            }
        };
    }

    /** Equal maps; else the sizes and the first ids that differ (the maps themselves are too long to print). */
    public static void assertSameBindings(java.util.Map<String, Long> expected, java.util.Map<String, Long> actual, String what) {
        if (!expected.equals(actual)) {
            List<String> differ = new java.util.ArrayList<>();
            for (String id : expected.keySet()) {
                if (!expected.get(id).equals(actual.get(id)) && differ.size() < 5) {
                    differ.add(id + ": " + expected.get(id) + " != " + actual.get(id));
                }
            }
            actual.keySet().stream().filter(id -> !expected.containsKey(id)).limit(5).forEach(id -> differ.add(id + " not stored"));
            throw new AssertionError(what + ": " + expected.size() + " stored, " + actual.size() + " exported; " + differ);
        }
    }
}
