package io.simdex.router.shard;

import io.grpc.Context;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.simdex.proto.v1.ShardGrpc;
import io.simdex.proto.v1.ShardReadAnswer;
import io.simdex.proto.v1.ShardReadRequest;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * One ReadStream call to one node: requests go out in order and come back answered in order,
 * each completing its future with the node's answer, or failing it with the status the node
 * answered instead.
 *
 * <h2>Time</h2>
 * A request unanswered past the router's read timeout, counted from when it was sent, means the
 * node is hung: {@link #sweep} then fails every request on the stream DEADLINE_EXCEEDED, as
 * their unary calls would have failed, and cancels the stream, so requests never pile up behind
 * a node that stopped answering. The node answers in order, so only the oldest request needs
 * watching, and no timer is made per request. A client's own deadline needs nothing here: when
 * it passes, gRPC ends the client's call to the router, and the node's answer is dropped.
 *
 * <p>The call is started in the root Context: it outlives the request that opened it. Requests
 * are written whether or not the call is ready; what gRPC buffers is bounded by the queries the
 * router has in flight, each of which sends one request per node.
 */
final class ReadStream implements ClientResponseObserver<ShardReadRequest, ShardReadAnswer> {
    private final String node;
    /** Sent and not answered, oldest first. Guarded by this, as is everything mutable here. */
    private final ArrayDeque<Pending> unanswered = new ArrayDeque<>();
    private ClientCallStreamObserver<ShardReadRequest> requests;
    private long nextSequence = 1;
    /** Set once the call failed or was given up: nothing more is sent on it. */
    private Status failure;
    /** Requests in {@link #unanswered}, read without the lock to pick the least busy stream. */
    private volatile int load;

    /** A request the node answered with a failure, as its unary call would have failed: not the stream's failure, so not to be asked again unary. */
    static final class Answered extends StatusRuntimeException {
        Answered(Status status) {
            super(status);
        }
    }

    /** @param deadline System.nanoTime() past which the node is taken as hung */
    private record Pending(long sequence, CompletableFuture<ShardReadAnswer> answer, long deadline) {
    }

    ReadStream(ManagedChannel channel) {
        this.node = channel.authority();
        Context previous = Context.ROOT.attach();
        try {
            ShardGrpc.newStub(channel).readStream(this);
        } finally {
            Context.ROOT.detach(previous);
        }
    }

    @Override
    public void beforeStart(ClientCallStreamObserver<ShardReadRequest> requests) {
        this.requests = requests;
    }

    synchronized boolean usable() {
        return failure == null;
    }

    int load() {
        return load;
    }

    /**
     * Sends {@code read} (all but its sequence set) as the next request: the future completes
     * with the node's answer, or fails with the status the node answered, or with the stream's
     * failure.
     *
     * @param readTimeoutMillis the router's bound on a read, see {@link #sweep}
     */
    CompletableFuture<ShardReadAnswer> send(ShardReadRequest.Builder read, long readTimeoutMillis) {
        CompletableFuture<ShardReadAnswer> answer = new CompletableFuture<>();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(readTimeoutMillis);
        synchronized (this) {
            if (failure != null) {
                answer.completeExceptionally(failure.asRuntimeException());
                return answer;
            }
            Pending pending = new Pending(nextSequence++, answer, deadline);
            unanswered.add(pending);
            load = unanswered.size();
            requests.onNext(read.setSequence(pending.sequence()).build());
        }
        return answer;
    }

    /** Fails the stream if its oldest request is past its deadline at {@code now} (System.nanoTime()). */
    void sweep(long now) {
        Pending oldest;
        synchronized (this) {
            oldest = unanswered.peek();
        }
        if (oldest != null && now - oldest.deadline() > 0) {
            fail(Status.DEADLINE_EXCEEDED.withDescription("node " + node + " did not answer a read within the read timeout"), oldest);
        }
    }

    @Override
    public void onNext(ShardReadAnswer a) {
        Pending done;
        synchronized (this) {
            done = unanswered.peek();
            if (done == null || done.sequence() != a.getSequence()) {
                done = null;
            } else {
                unanswered.poll();
                load = unanswered.size();
            }
        }
        if (done == null) {
            fail(Status.INTERNAL.withDescription("node " + node + " answered read " + a.getSequence() + " out of order"), null);
            return;
        }
        if (a.getStatusCode() == Status.Code.OK.value()) {
            done.answer().complete(a);
        } else {
            Status status = Status.fromCodeValue(a.getStatusCode());
            done.answer().completeExceptionally(new Answered(a.getStatusDescription().isEmpty() ? status : status.withDescription(a.getStatusDescription())));
        }
    }

    @Override
    public void onError(Throwable t) {
        fail(Status.fromThrowable(t), null);
    }

    @Override
    public void onCompleted() {
        fail(Status.UNAVAILABLE.withDescription("node " + node + " ended the read stream"), null);
    }

    /**
     * Fails every unanswered request with {@code status} and ends the call, if {@code oldest} is
     * null or still the oldest unanswered request; the first failure wins.
     */
    private void fail(Status status, Pending oldest) {
        List<Pending> failed;
        synchronized (this) {
            if (failure != null || (oldest != null && unanswered.peek() != oldest)) {
                return;
            }
            failure = status;
            failed = new ArrayList<>(unanswered);
            unanswered.clear();
            load = 0;
        }
        requests.cancel(status.getDescription(), status.getCause()); // a no-op on a call that has ended
        for (Pending p : failed) {
            p.answer().completeExceptionally(status.asRuntimeException());
        }
    }

    /** Ends the call: what is unanswered fails CANCELLED. */
    void close() {
        fail(Status.CANCELLED.withDescription("read stream to node " + node + " closed"), null);
    }
}
