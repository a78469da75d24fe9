package io.simdex.client.batch;

import io.grpc.Status;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;

/** Waits for an RPC's future, rethrowing its failure (a gRPC status) as it was. */
final class Await {
    private Await() {
    }

    static <T> T result(Future<T> f) {
        try {
            return f.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw Status.CANCELLED.withDescription("interrupted").withCause(e).asRuntimeException();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException re) {
                throw re;
            }
            throw new IllegalStateException(e.getCause());
        }
    }
}
