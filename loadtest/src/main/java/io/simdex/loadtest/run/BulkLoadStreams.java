package io.simdex.loadtest.run;

import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.simdex.proto.v1.BulkLoadRequest;
import io.simdex.proto.v1.BulkLoadResponse;
import io.simdex.proto.v1.SimdexGrpc;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongFunction;

/**
 * BulkLoad over several concurrent streams, flow-controlled: a stream sends its next batch only
 * when the transport says it is ready, so a slow server slows the sender instead of filling its
 * memory. Stream s sends batches s, s + streams, s + 2 * streams, ...
 */
final class BulkLoadStreams {
    private BulkLoadStreams() {
    }

    /** Sends batches 0..batches-1; returns the documents the server reports inserted. */
    static long run(SimdexGrpc.SimdexStub[] stubs, int streams, long batches, LongFunction<BulkLoadRequest> batch, long timeoutNanos)
            throws InterruptedException {
        CountDownLatch done = new CountDownLatch(streams);
        AtomicLong inserted = new AtomicLong();
        AtomicReference<Throwable> error = new AtomicReference<>();
        for (int s = 0; s < streams; s++) {
            SimdexGrpc.SimdexStub stub = stubs[s % stubs.length].withDeadlineAfter(timeoutNanos, TimeUnit.NANOSECONDS);
            stub.bulkLoad(new Stream(s, streams, batches, batch, inserted, error, done));
        }
        done.await(timeoutNanos, TimeUnit.NANOSECONDS);
        if (error.get() != null) {
            throw new IllegalStateException("bulk load failed: " + io.grpc.Status.fromThrowable(error.get()), error.get());
        }
        return inserted.get();
    }

    private static final class Stream implements ClientResponseObserver<BulkLoadRequest, BulkLoadResponse> {
        private final int streams;
        private final long batches;
        private final LongFunction<BulkLoadRequest> batch;
        private final AtomicLong inserted;
        private final AtomicReference<Throwable> error;
        private final CountDownLatch done;
        private ClientCallStreamObserver<BulkLoadRequest> requests;
        private long next;
        private boolean completed;

        Stream(int first, int streams, long batches, LongFunction<BulkLoadRequest> batch, AtomicLong inserted,
               AtomicReference<Throwable> error, CountDownLatch done) {
            this.next = first;
            this.streams = streams;
            this.batches = batches;
            this.batch = batch;
            this.inserted = inserted;
            this.error = error;
            this.done = done;
        }

        @Override
        public void beforeStart(ClientCallStreamObserver<BulkLoadRequest> requestStream) {
            this.requests = requestStream;
            requestStream.setOnReadyHandler(this::drain);
        }

        private synchronized void drain() {
            while (requests.isReady() && next < batches) {
                requests.onNext(batch.apply(next));
                next += streams;
            }
            if (next >= batches && !completed) {
                completed = true;
                requests.onCompleted();
            }
        }

        @Override
        public void onNext(BulkLoadResponse response) {
            inserted.addAndGet(response.getInserted());
        }

        @Override
        public void onError(Throwable t) {
            error.compareAndSet(null, t);
            done.countDown();
        }

        @Override
        public void onCompleted() {
            done.countDown();
        }
    }
}
