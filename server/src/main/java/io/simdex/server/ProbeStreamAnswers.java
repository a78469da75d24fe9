package io.simdex.server;

import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.simdex.proto.v1.ShardGrpc;
import io.simdex.proto.v1.ShardProbeManyRequest;
import io.simdex.proto.v1.ShardProbeManyResponse;
import io.simdex.proto.v1.ShardProbeStreamAnswer;
import io.simdex.proto.v1.ShardProbeStreamRequest;
import io.simdex.server.grpc.CallGuard;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;

/**
 * One ProbeStream call (shard.proto): each request answered as ProbeMany answers it, in the
 * order they came. gRPC hands a call's messages over one at a time and asks for the next only
 * when {@link #onNext} returns, so a router's requests on one stream are handled one after the
 * other; a router keeps a few streams per node for its concurrent queries.
 *
 * <p>A request that fails is answered with the status ProbeMany would have closed its call with
 * and the stream goes on: one bad query must not fail the others behind it. A failure that is not
 * the caller's is logged with its stack under a request id, which its answer names, as
 * {@link CallGuard} does for a unary call.
 *
 * <h2>The fence</h2>
 * Each request carries the epoch it was routed by and is counted in flight under it while it is
 * handled ({@link NodeState#admit}), as a unary call stamped with the header is: a stream that
 * lives through a map change neither slips past the fence nor holds the node's SetEpoch until it
 * ends.
 */
final class ProbeStreamAnswers implements StreamObserver<ShardProbeStreamRequest> {
    private static final Logger LOG = LoggerFactory.getLogger(ProbeStreamAnswers.class);

    private static final String PROBE_MANY = ShardGrpc.getProbeManyMethod().getFullMethodName();

    private final Function<ShardProbeManyRequest, ShardProbeManyResponse> probeMany;
    private final NodeState state;
    private final StreamedRequests streamed;
    private final StreamObserver<ShardProbeStreamAnswer> out;

    /** {@code probeMany} checks and answers one request, or throws a status exception; {@code streamed} hears of each. */
    ProbeStreamAnswers(Function<ShardProbeManyRequest, ShardProbeManyResponse> probeMany, NodeState state, StreamedRequests streamed,
            StreamObserver<ShardProbeStreamAnswer> out) {
        this.probeMany = probeMany;
        this.state = state;
        this.streamed = streamed;
        this.out = out;
    }

    @Override
    public void onNext(ShardProbeStreamRequest request) {
        long start = System.nanoTime();
        ShardProbeStreamAnswer.Builder answer = ShardProbeStreamAnswer.newBuilder().setSequence(request.getSequence());
        Status.Code code = Status.Code.OK;
        try {
            answer.setAnswer(answer(request));
        } catch (RuntimeException | Error e) {
            Status status = Status.fromThrowable(e);
            if (status.getCode() == Status.Code.UNKNOWN || status.getCode() == Status.Code.INTERNAL) {
                String id = Long.toHexString(ThreadLocalRandom.current().nextLong());
                LOG.error("{}{}: ProbeStream request {} failed", CallGuard.INTERNAL_PREFIX, id, request.getSequence(), e);
                status = Status.INTERNAL.withDescription(CallGuard.INTERNAL_PREFIX + id);
            }
            code = status.getCode();
            answer.setStatusCode(code.value());
            if (status.getDescription() != null) {
                answer.setStatusDescription(status.getDescription());
            }
        }
        streamed.answered(PROBE_MANY, code, System.nanoTime() - start);
        out.onNext(answer.build());
    }

    private ShardProbeManyResponse answer(ShardProbeStreamRequest request) {
        long epoch = request.getEpoch();
        if (request.getFenced() && !state.admit(epoch)) {
            throw EpochFence.stale(state, epoch).asRuntimeException();
        }
        try {
            return probeMany.apply(request.getProbes());
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
