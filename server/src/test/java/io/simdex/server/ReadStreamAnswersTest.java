package io.simdex.server;

import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.simdex.proto.v1.ShardProbeManyRequest;
import io.simdex.proto.v1.ShardProbeManyResponse;
import io.simdex.proto.v1.ShardReadAnswer;
import io.simdex.proto.v1.ShardReadRequest;
import io.simdex.proto.v1.ShardResolveRequest;
import io.simdex.proto.v1.ShardResolveResponse;
import io.simdex.server.grpc.CallGuard;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** One ReadStream call's answers: each request answered or failed on its own, in order, and reported as its unary method. */
class ReadStreamAnswersTest {
    private final List<ShardReadAnswer> answers = new ArrayList<>();
    private final List<String> reported = new ArrayList<>();
    private boolean completed;
    private final StreamObserver<ShardReadAnswer> out = new StreamObserver<>() {
        @Override
        public void onNext(ShardReadAnswer a) {
            answers.add(a);
        }

        @Override
        public void onError(Throwable t) {
            throw new AssertionError("the stream must not fail", t);
        }

        @Override
        public void onCompleted() {
            completed = true;
        }
    };

    private ReadStreamAnswers stream(NodeState state) {
        return new ReadStreamAnswers(
                req -> {
                    if (req.getCollection().equals("bug")) {
                        throw new IllegalStateException("a handler bug");
                    }
                    return ShardProbeManyResponse.newBuilder().addMatchCounts(req.getPartsCount()).build();
                },
                req -> ShardResolveResponse.newBuilder().addTotals(req.getFingerprintsCount()).build(),
                state, (method, code, nanos) -> reported.add(method.substring(method.lastIndexOf('/') + 1) + " " + code), out);
    }

    @Test
    void eachRequestAnsweredInOrder_failuresAlone_theStreamGoesOn() {
        ReadStreamAnswers s = stream(new NodeState("n", 7, true));

        s.onNext(ShardReadRequest.newBuilder().setSequence(1).setProbeMany(ShardProbeManyRequest.newBuilder().setCollection("c")).build());
        s.onNext(ShardReadRequest.newBuilder().setSequence(2).setProbeMany(ShardProbeManyRequest.newBuilder().setCollection("bug")).build());
        s.onNext(ShardReadRequest.newBuilder().setSequence(3).build());
        s.onNext(ShardReadRequest.newBuilder().setSequence(4).setFenced(true).setEpoch(6)
                .setResolveIds(ShardResolveRequest.newBuilder().setCollection("c").addFingerprints(1)).build());
        s.onNext(ShardReadRequest.newBuilder().setSequence(5).setFenced(true).setEpoch(7)
                .setResolveIds(ShardResolveRequest.newBuilder().setCollection("c").addFingerprints(1).addFingerprints(2)).build());
        s.onCompleted();

        assertEquals(List.of(1L, 2L, 3L, 4L, 5L), answers.stream().map(ShardReadAnswer::getSequence).toList());
        assertEquals(Status.Code.OK.value(), answers.get(0).getStatusCode());
        assertTrue(answers.get(0).hasProbeMany());

        assertEquals(Status.Code.INTERNAL.value(), answers.get(1).getStatusCode());
        assertTrue(answers.get(1).getStatusDescription().startsWith(CallGuard.INTERNAL_PREFIX), answers.get(1).getStatusDescription());
        assertFalse(answers.get(1).getStatusDescription().contains("handler bug"), "the cause is logged, not sent");

        assertEquals(Status.Code.INVALID_ARGUMENT.value(), answers.get(2).getStatusCode());
        assertTrue(answers.get(2).getStatusDescription().contains("neither probe_many nor resolve_ids"), answers.get(2).getStatusDescription());

        assertEquals(Status.Code.FAILED_PRECONDITION.value(), answers.get(3).getStatusCode());
        assertTrue(answers.get(3).getStatusDescription().startsWith("stale placement epoch 6"), answers.get(3).getStatusDescription());

        assertEquals(Status.Code.OK.value(), answers.get(4).getStatusCode());
        assertEquals(List.of(2L), answers.get(4).getResolveIds().getTotalsList());

        assertEquals(List.of("ProbeMany OK", "ProbeMany INTERNAL", "ResolveIds FAILED_PRECONDITION", "ResolveIds OK"), reported);
        assertTrue(completed);
    }
}
