package io.simdex.server;

import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.simdex.proto.v1.ShardGrpc;
import io.simdex.proto.v1.ShardProbeManyRequest;
import io.simdex.proto.v1.ShardProbeManyResponse;
import io.simdex.proto.v1.ShardReadAnswer;
import io.simdex.proto.v1.ShardReadRequest;
import io.simdex.proto.v1.ShardResolveRequest;
import io.simdex.proto.v1.ShardResolveResponse;
import io.simdex.server.grpc.CallGuard;

import java.util.function.Function;

import static io.simdex.server.Calls.invalid;

/**
 * One ReadStream call (shard.proto): each request answered as its unary call (ProbeMany,
 * ResolveIds) answers it, in the order they came. gRPC hands a call's messages over one at a
 * time and asks for the next only when {@link #onNext} returns, so a router's requests on one
 * stream are handled one after the other; a router keeps a few streams per node for its
 * concurrent queries.
 *
 * <p>A request that fails is answered with the status its unary call would have closed with and
 * the stream goes on: one bad query must not fail the others behind it. A failure that is not the
 * caller's is logged with its stack under a request id, which its answer names, as
 * {@link CallGuard} does for a unary call. Each request is reported to {@link StreamedRequests}
 * under its unary method's name.
 *
 * <h2>The fence</h2>
 * Each request carries the epoch it was routed by and is counted in flight under it while it is
 * handled ({@link NodeState#admit}), as a unary call stamped with the header is: a stream that
 * lives through a map change neither slips past the fence nor holds the node's SetEpoch until it
 * ends.
 */
final class ReadStreamAnswers implements StreamObserver<ShardReadRequest> {
    private static final String PROBE_MANY = ShardGrpc.getProbeManyMethod().getFullMethodName();
    private static final String RESOLVE_IDS = ShardGrpc.getResolveIdsMethod().getFullMethodName();

    private final Function<ShardProbeManyRequest, ShardProbeManyResponse> probeMany;
    private final Function<ShardResolveRequest, ShardResolveResponse> resolveIds;
    private final NodeState state;
    private final StreamedRequests streamed;
    private final StreamObserver<ShardReadAnswer> out;

    /** The functions check and answer one request each, or throw a status exception. */
    ReadStreamAnswers(Function<ShardProbeManyRequest, ShardProbeManyResponse> probeMany,
            Function<ShardResolveRequest, ShardResolveResponse> resolveIds, NodeState state, StreamedRequests streamed,
            StreamObserver<ShardReadAnswer> out) {
        this.probeMany = probeMany;
        this.resolveIds = resolveIds;
        this.state = state;
        this.streamed = streamed;
        this.out = out;
    }

    @Override
    public void onNext(ShardReadRequest request) {
        long start = System.nanoTime();
        ShardReadAnswer.Builder answer = ShardReadAnswer.newBuilder().setSequence(request.getSequence());
        Status.Code code = Status.Code.OK;
        try {
            answer(request, answer);
        } catch (RuntimeException | Error e) {
            Status status = Status.fromThrowable(e);
            if (status.getCode() == Status.Code.UNKNOWN || status.getCode() == Status.Code.INTERNAL) {
                status = CallGuard.internal("ReadStream request " + request.getSequence() + " failed", e);
            }
            code = status.getCode();
            answer.clearAnswer().setStatusCode(code.value());
            if (status.getDescription() != null) {
                answer.setStatusDescription(status.getDescription());
            }
        }
        if (request.getReadCase() != ShardReadRequest.ReadCase.READ_NOT_SET) {
            streamed.answered(request.hasResolveIds() ? RESOLVE_IDS : PROBE_MANY, code, System.nanoTime() - start);
        }
        out.onNext(answer.build());
    }

    private void answer(ShardReadRequest request, ShardReadAnswer.Builder answer) {
        if (request.getReadCase() == ShardReadRequest.ReadCase.READ_NOT_SET) {
            throw invalid("read request " + request.getSequence() + " has neither probe_many nor resolve_ids");
        }
        long epoch = request.getEpoch();
        if (request.getFenced() && !state.admit(epoch)) {
            throw EpochFence.stale(state, epoch).asRuntimeException();
        }
        try {
            if (request.hasResolveIds()) {
                answer.setResolveIds(resolveIds.apply(request.getResolveIds()));
            } else {
                answer.setProbeMany(probeMany.apply(request.getProbeMany()));
            }
        } finally {
            if (request.getFenced()) {
                state.finished(epoch);
            }
        }
    }

    /** The router went away: nothing to undo, reads change nothing. */
    @Override
    public void onError(Throwable t) {
    }

    @Override
    public void onCompleted() {
        out.onCompleted();
    }
}
