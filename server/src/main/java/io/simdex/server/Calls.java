package io.simdex.server;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import io.simdex.server.store.NoRoomException;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Supplier;

/**
 * What {@link ShardService} and {@link ShardControlService} share in turning a call into an
 * answer: a handler's {@link StatusRuntimeException} goes to the client as it is, any other
 * exception as INTERNAL (a fault in the node, not the caller's) carrying the exception as its
 * cause, for the server's CallGuard to log under a request id; no room for a store's files (a
 * full disk, the process's limits: {@link io.simdex.server.store.NoRoomException}) is
 * UNAVAILABLE; bad input is refused with INVALID_ARGUMENT naming the bad value before anything
 * changes.
 */
final class Calls {
    private Calls() {
    }

    /** Sends {@code call}'s response, or its failure as a status. */
    static <T> void answer(StreamObserver<T> out, Supplier<T> call) {
        T response;
        try {
            response = call.get();
        } catch (RuntimeException e) {
            out.onError(asStatus(e));
            return;
        }
        out.onNext(response);
        out.onCompleted();
    }

    /**
     * As {@link #answer}, sending the response only once {@code barrier} completes, by
     * {@code executor} (in place when the barrier is complete already, or when the executor
     * refuses, as a stopping one does); a barrier that fails answers with its failure instead.
     * The calling thread does not wait for it.
     */
    static <T> void answerWhen(StreamObserver<T> out, Supplier<T> call, Supplier<CompletableFuture<?>> barrier, Executor executor) {
        T response;
        CompletableFuture<?> done;
        try {
            response = call.get();
            done = barrier.get();
        } catch (RuntimeException e) {
            out.onError(asStatus(e));
            return;
        }
        if (done.isDone()) {
            send(out, response, done);
            return;
        }
        done.whenComplete((v, e) -> {
            try {
                executor.execute(() -> send(out, response, done));
            } catch (RejectedExecutionException stopping) {
                send(out, response, done);
            }
        });
    }

    private static <T> void send(StreamObserver<T> out, T response, CompletableFuture<?> done) {
        try {
            done.join();
        } catch (CompletionException e) {
            out.onError(asStatus(e.getCause() instanceof RuntimeException r ? r : e));
            return;
        }
        out.onNext(response);
        out.onCompleted();
    }

    /** As {@link #answer} for a server-streaming call, whose body sends its own messages. */
    static <T> void stream(StreamObserver<T> out, Runnable call) {
        try {
            call.run();
        } catch (RuntimeException e) {
            out.onError(asStatus(e));
            return;
        }
        out.onCompleted();
    }

    static RuntimeException asStatus(RuntimeException e) {
        if (e instanceof StatusRuntimeException) {
            return e;
        }
        NoRoomException noRoom = NoRoomException.in(e);
        if (noRoom != null) {
            // The node's fault, not the request's: a router counts this replica as failed (and
            // marks it behind if the others make the quorum) rather than failing the write.
            return Status.UNAVAILABLE.withDescription(noRoom.getMessage()).asRuntimeException();
        }
        return Status.INTERNAL.withCause(e).asRuntimeException();
    }

    static StatusRuntimeException invalid(String message) {
        return Status.INVALID_ARGUMENT.withDescription(message).asRuntimeException();
    }
}
