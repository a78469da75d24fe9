package io.simdex.client;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.simdex.proto.v1.BulkLoadRequest;
import io.simdex.proto.v1.BulkLoadResponse;
import io.simdex.proto.v1.SimdexGrpc.SimdexStub;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * One BulkLoad stream: takes documents one at a time and sends them in batches, holding at
 * most the batch being filled plus what the transport has accepted.
 *
 * <p>Flow control: before sending a batch, {@link #add} blocks until the call is ready
 * ({@link ClientCallStreamObserver#isReady()}), so a producer faster than the server waits
 * instead of queueing batches in memory. The wait ends when the transport drains, or when the
 * call fails (deadline, server error, cancel), which then throws.
 *
 * <p>Life cycle: {@link #add} any number of times, then either {@link #close()} to send the
 * last batch and wait for the server's count, or {@link #cancel} to abandon the stream. This is
 * deliberately not {@link AutoCloseable}: closing completes the load, which must not happen by
 * accident when the producer failed halfway. Batches sent before a failure stay inserted.
 *
 * <p>Not thread-safe: one producer thread calls {@link #add}, {@link #close()} and
 * {@link #cancel}; the {@code sent...} counters may be read from any thread.
 */
public final class BulkLoader {
    private final Object readyLock = new Object();
    private final CompletableFuture<BulkLoadResponse> response = new CompletableFuture<>();
    private final ClientCallStreamObserver<BulkLoadRequest> requests;
    private final String collection;
    private final int batchSize;

    private BulkLoadRequest.Builder batch;
    // Volatile so another thread (a progress display, a test) may read them.
    private volatile long sentDocuments;
    private volatile long sentBatches;
    private boolean finished;

    BulkLoader(SimdexStub stub, String collection, int batchSize, Duration deadline) {
        this.collection = collection;
        this.batchSize = batchSize;
        this.batch = newBatch();
        this.requests = (ClientCallStreamObserver<BulkLoadRequest>) stub
                .withDeadlineAfter(deadline.toNanos(), TimeUnit.NANOSECONDS)
                .bulkLoad(new ResponseObserver());
    }

    /**
     * Queues {@code doc}; sends the batch when it is full, first waiting for flow control.
     *
     * @throws StatusRuntimeException when the stream has failed (the server's status, the
     *                                deadline, or CANCELLED on interrupt)
     * @throws IllegalStateException  after {@link #close()} or {@link #cancel}
     */
    public void add(Doc doc) {
        if (finished) {
            throw new IllegalStateException("bulk loader is closed");
        }
        batch.addDocuments(ProtoMapper.toProto(doc));
        if (batch.getDocumentsCount() >= batchSize) {
            send();
        }
    }

    /**
     * Sends the last partial batch, ends the stream and waits for the server's response.
     *
     * @return documents the server inserted over the whole stream
     * @throws StatusRuntimeException when the stream failed, here or during an earlier
     *                                {@link #add}; batches sent before stay inserted
     */
    public long close() {
        if (finished) {
            throw new IllegalStateException("bulk loader is closed");
        }
        if (batch.getDocumentsCount() > 0) {
            send();
        }
        finished = true;
        requests.onCompleted();
        return awaitResponse().getInserted();
    }

    /**
     * Abandons the stream: the server sees CANCELLED. Batches already sent may stay inserted.
     * Does nothing once the loader is closed or cancelled.
     */
    public void cancel(String reason, Throwable cause) {
        if (!finished) {
            finished = true;
            requests.cancel(reason, cause);
        }
    }

    /** Documents handed to the stream so far (not counting the batch being filled). */
    public long sentDocuments() {
        return sentDocuments;
    }

    /** Batches handed to the stream so far. */
    public long sentBatches() {
        return sentBatches;
    }

    private void send() {
        awaitReady();
        requests.onNext(batch.build());
        sentDocuments += batch.getDocumentsCount();
        sentBatches++;
        batch = newBatch();
    }

    /** Blocks until the transport takes another message, or throws once the call has ended. */
    private void awaitReady() {
        synchronized (readyLock) {
            // The handlers notify under the same lock, so a wake-up between check and wait is not lost.
            while (!requests.isReady() && !response.isDone()) {
                try {
                    readyLock.wait();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    cancel("interrupted", e);
                    throw Status.CANCELLED.withDescription("bulk load interrupted").withCause(e).asRuntimeException();
                }
            }
        }
        if (response.isCompletedExceptionally()) {
            awaitResponse();
        }
    }

    private BulkLoadResponse awaitResponse() {
        try {
            return response.get();
        } catch (ExecutionException e) {
            // Rethrown as a new exception so the stack trace shows the caller, not a gRPC thread.
            Throwable cause = e.getCause();
            throw Status.fromThrowable(cause).asRuntimeException(Status.trailersFromThrowable(cause));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            requests.cancel("interrupted", e);
            throw Status.CANCELLED.withDescription("bulk load interrupted").withCause(e).asRuntimeException();
        }
    }

    private BulkLoadRequest.Builder newBatch() {
        return BulkLoadRequest.newBuilder().setCollection(collection);
    }

    private void wakeProducer() {
        synchronized (readyLock) {
            readyLock.notifyAll();
        }
    }

    /** Receives the single response and wakes the producer on every state change. */
    private final class ResponseObserver implements ClientResponseObserver<BulkLoadRequest, BulkLoadResponse> {
        @Override
        public void beforeStart(ClientCallStreamObserver<BulkLoadRequest> stream) {
            stream.setOnReadyHandler(BulkLoader.this::wakeProducer);
        }

        @Override
        public void onNext(BulkLoadResponse value) {
            response.complete(value);
        }

        @Override
        public void onError(Throwable t) {
            response.completeExceptionally(t);
            wakeProducer();
        }

        @Override
        public void onCompleted() {
            // A server that completes without a response breaks the contract; fail rather than hang.
            response.completeExceptionally(
                    Status.INTERNAL.withDescription("BulkLoad completed without a response").asRuntimeException());
            wakeProducer();
        }
    }
}
