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
 * A window not acknowledged within its timeout (the unary write's) fails DEADLINE_EXCEEDED; so
 * does a wait for a slot that long. Either, or the call failing, fails every unacknowledged
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

    private record Pending(long sequence, CompletableFuture<Long> acked) {
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
            fail(refused);
            acked.completeExceptionally(refused.asRuntimeException());
            return acked;
        }
        if (timeoutMillis > 0) {
            CompletableFuture.delayedExecutor(timeoutMillis, TimeUnit.MILLISECONDS).execute(() -> {
                if (!acked.isDone()) {
                    fail(Status.DEADLINE_EXCEEDED.withDescription("bucket window not acknowledged within " + timeoutMillis + " ms"));
                }
            });
        }
        return acked;
    }

    /** Queues the window, or answers why it cannot be: the stream failed, or no slot freed up in time. */
    private synchronized Status queue(ShardBucketAddManyRequest additions, long epoch, boolean fenced, long timeoutMillis,
            CompletableFuture<Long> acked) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        boolean counted = false;
        while (failure == null && unacked.size() >= maxUnacked) {
            if (!counted) {
                owner.waited();
                counted = true;
            }
            long left = deadline - System.nanoTime();
            if (timeoutMillis > 0 && left <= 0) {
                return Status.DEADLINE_EXCEEDED.withDescription("node acknowledged none of " + maxUnacked + " bucket windows within "
                        + timeoutMillis + " ms");
            }
            try {
                if (timeoutMillis > 0) {
                    TimeUnit.NANOSECONDS.timedWait(this, left);
                } else {
                    wait();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return Status.CANCELLED.withDescription("interrupted waiting to send a bucket window");
            }
        }
        if (failure != null) {
            return failure;
        }
        long sequence = nextSequence++;
        unacked.add(new Pending(sequence, acked));
        owner.unacked(unacked.size());
        unwritten.add(ShardBucketWindow.newBuilder().setSequence(sequence).setEpoch(epoch).setFenced(fenced).setAdditions(additions).build());
        write();
        return null;
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
                failure = failure == null ? Status.OK : failure; // ended as asked: nothing more goes on it
                return;
            }
        }
        fail(Status.UNAVAILABLE.withDescription("node ended the bucket stream with windows unacknowledged"));
    }

    /** Fails every unacknowledged window with {@code status} and ends the call; the first failure wins. */
    private void fail(Status status) {
        List<Pending> failed;
        synchronized (this) {
            if (failure != null) {
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
