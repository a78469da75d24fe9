package io.simdex.router.shard;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.simdex.proto.v1.ShardBucketAddManyRequest;
import io.simdex.proto.v1.ShardBucketWindow;
import io.simdex.proto.v1.ShardBucketWindowAck;
import io.simdex.proto.v1.ShardGrpc;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * One BucketAddStream call to one node: windows go out in order and come back acknowledged in
 * order, each completing its future with the node's count.
 *
 * <h2>Flow control</h2>
 * At most {@code maxUnacked} windows are unacknowledged at once, counting those not yet written:
 * {@link #send} waits for a slot (the sender is a BulkLoad's handler thread, which may block).
 * A window is written only while the call {@link ClientCallStreamObserver#isReady is ready}, the
 * rest on its onReady, so what the router holds for a slow node is bounded by the windows, and
 * what gRPC buffers by its own flow-control window.
 *
 * <h2>Failure</h2>
 * A window not acknowledged within its timeout (the unary write's), counted from when the window
 * before it was, fails DEADLINE_EXCEEDED; that, or the call failing, fails every unacknowledged
 * window with the status and leaves the stream unusable: its {@link BucketStreams} opens another
 * for the next window. Each window's caller decides what a failure means, as for a unary call.
 */
final class NodeStream implements ClientResponseObserver<ShardBucketWindow, ShardBucketWindowAck> {
    private final int maxUnacked;
    private final BucketStreams owner;
    /** Sent or waiting to be, oldest first. Guarded by this, as is everything mutable here. */
    private final ArrayDeque<Pending> unacked = new ArrayDeque<>();
    /** The tail of {@link #unacked} not written yet. */
    private final ArrayDeque<ShardBucketWindow> unwritten = new ArrayDeque<>();
    private ClientCallStreamObserver<ShardBucketWindow> requests;
    private long nextSequence = 1;
    /** Set once the call failed or was given up: nothing more is sent on it. */
    private Status failure;
    private boolean finished;

    private record Pending(long sequence, CompletableFuture<Long> acked, long timeoutMillis) {
    }

    /** Starts the call, in the caller's gRPC Context (a client's deadline and cancellation reach the stream). */
    NodeStream(ManagedChannel channel, int maxUnacked, BucketStreams owner) {
        this.maxUnacked = maxUnacked;
        this.owner = owner;
        ShardGrpc.newStub(channel).bucketAddStream(this);
    }

    @Override
    public void beforeStart(ClientCallStreamObserver<ShardBucketWindow> requests) {
        this.requests = requests;
        requests.setOnReadyHandler(this::write);
    }

    synchronized boolean usable() {
        return failure == null && !finished;
    }

    /**
     * Queues {@code additions} as the next window once fewer than {@code maxUnacked} are
     * unacknowledged; the future completes with the node's count when it acknowledges the window.
     */
    CompletableFuture<Long> send(ShardBucketAddManyRequest additions, long epoch, boolean fenced, long timeoutMillis) {
        CompletableFuture<Long> acked = new CompletableFuture<>();
        Status refused = queue(additions, epoch, fenced, timeoutMillis, acked);
        if (refused != null) {
            acked.completeExceptionally(refused.asRuntimeException());
        }
        return acked;
    }

    /** Queues the window, or answers why it cannot be: the stream failed, or the wait for a slot was interrupted. */
    private synchronized Status queue(ShardBucketAddManyRequest additions, long epoch, boolean fenced, long timeoutMillis,
            CompletableFuture<Long> acked) {
        boolean counted = false;
        while (failure == null && unacked.size() >= maxUnacked) {
            if (!counted) {
                owner.waited();
                counted = true;
            }
            try {
                wait(); // until an acknowledgement or a failure (the oldest window's timeout among them)
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return Status.CANCELLED.withDescription("interrupted waiting to send a bucket window");
            }
        }
        if (failure != null) {
            return failure;
        }
        if (finished) {
            return Status.UNAVAILABLE.withDescription("bucket stream already ended");
        }
        long sequence = nextSequence++;
        unacked.add(new Pending(sequence, acked, timeoutMillis));
        owner.unacked(unacked.size());
        if (unacked.size() == 1) {
            arm(unacked.peek());
        }
        unwritten.add(ShardBucketWindow.newBuilder().setSequence(sequence).setEpoch(epoch).setFenced(fenced).setAdditions(additions).build());
        write();
        return null;
    }

    /**
     * Times the oldest unacknowledged window from when it became the oldest: the node applies
     * windows one after another, so a window's time starts when the one before it is done, and
     * it gets as long as a unary write would.
     */
    private void arm(Pending oldest) {
        if (oldest.timeoutMillis() <= 0) {
            return;
        }
        CompletableFuture.delayedExecutor(oldest.timeoutMillis(), TimeUnit.MILLISECONDS).execute(() -> fail(
                Status.DEADLINE_EXCEEDED.withDescription("bucket window not acknowledged within " + oldest.timeoutMillis() + " ms"), oldest));
    }

    /** Writes queued windows while the call takes them. */
    private synchronized void write() {
        while (failure == null && !unwritten.isEmpty() && requests.isReady()) {
            requests.onNext(unwritten.poll());
        }
    }

    @Override
    public void onNext(ShardBucketWindowAck ack) {
        Pending done;
        synchronized (this) {
            done = unacked.peek();
            if (done == null || done.sequence() != ack.getSequence()) {
                done = null;
            } else {
                unacked.poll();
                if (!unacked.isEmpty()) {
                    arm(unacked.peek());
                }
                notifyAll();
            }
        }
        if (done == null) {
            fail(Status.INTERNAL.withDescription("node acknowledged bucket window " + ack.getSequence() + " out of order"));
            return;
        }
        done.acked().complete(ack.getChanged());
    }

    @Override
    public void onError(Throwable t) {
        fail(Status.fromThrowable(t));
    }

    @Override
    public void onCompleted() {
        synchronized (this) {
            if (unacked.isEmpty()) {
                finished = true; // nothing more goes on it
                return;
            }
        }
        fail(Status.UNAVAILABLE.withDescription("node ended the bucket stream with windows unacknowledged"));
    }

    /** Fails every unacknowledged window with {@code status} and ends the call; the first failure wins. */
    private void fail(Status status) {
        fail(status, null);
    }

    /** As {@link #fail(Status)}, if {@code oldest} is null or still the oldest unacknowledged window. */
    private void fail(Status status, Pending oldest) {
        List<Pending> failed;
        synchronized (this) {
            if (failure != null || (oldest != null && unacked.peek() != oldest)) {
                return;
            }
            failure = status;
            failed = new ArrayList<>(unacked);
            unacked.clear();
            unwritten.clear();
            notifyAll();
        }
        requests.cancel(status.getDescription(), status.getCause()); // a no-op on a call that has ended
        for (Pending p : failed) {
            p.acked().completeExceptionally(status.asRuntimeException());
        }
    }

    /** Half-closes the call: the node ends it once it has applied what it was sent. */
    synchronized void finish() {
        if (failure == null && !finished) {
            finished = true;
            requests.onCompleted();
        }
    }
}
