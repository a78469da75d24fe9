package io.simdex.loadtest.run;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.simdex.proto.v1.HandlingTimesRequest;
import io.simdex.proto.v1.HandlingTimesResponse;
import io.simdex.proto.v1.MethodHandlingTime;
import io.simdex.proto.v1.SimdexGrpc;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * A target's own view of a run: the server's handling times for the run's method, through the
 * HandlingTimes RPC, reset before the run and read after it. Servers without the RPC (UNIMPLEMENTED)
 * are simply not asked again; any other failure leaves that run without server times. The reset
 * and the read are two calls outside the measured window, through a future stub like the
 * workload's: a blocking stub's own listener and executor classes at call sites the workload had
 * alone made the generator's JIT throw away and recompile its call paths in the next run.
 */
final class ServerTimes {
    private final SimdexGrpc.SimdexFutureStub stub;
    private final String method;
    private boolean supported = true;
    /** The last reset succeeded: the next read counts exactly the run's calls. */
    private boolean counting;

    /** @param method the full method name the workload calls, e.g. "simdex.v1.Simdex/Query" */
    ServerTimes(ManagedChannel channel, String method) {
        this.stub = SimdexGrpc.newFutureStub(channel);
        this.method = method;
    }

    /** Starts the server's counts afresh. */
    void reset() throws InterruptedException {
        counting = ask(true) != null;
    }

    /** The run's handling times since {@link #reset}, or null if the server does not keep them. */
    ServerHandling read() throws InterruptedException {
        if (!counting) {
            return null;
        }
        MethodHandlingTime t = ask(false);
        return t == null ? null : new ServerHandling(t.getCalls(), t.getP50Us(), t.getP90Us(), t.getP99Us(), t.getP999Us(), t.getMaxUs(),
                t.getQueuedP50Us(), t.getQueuedP99Us(), t.getQueuedMaxUs());
    }

    private MethodHandlingTime ask(boolean reset) throws InterruptedException {
        if (!supported) {
            return null;
        }
        HandlingTimesResponse r;
        try {
            r = stub.withDeadlineAfter(10, TimeUnit.SECONDS).handlingTimes(HandlingTimesRequest.newBuilder().setReset(reset).build()).get();
        } catch (ExecutionException e) {
            Status status = Status.fromThrowable(e.getCause());
            if (status.getCode() == Status.Code.UNIMPLEMENTED) {
                supported = false;
            } else {
                // The run's own figures stand; only its server-side view is missing.
                System.err.println("  server handling times unavailable for this run: " + status);
            }
            return null;
        }
        return r.getMethodsList().stream().filter(m -> m.getMethod().equals(method)).findFirst()
                .orElse(MethodHandlingTime.newBuilder().setMethod(method).build());
    }
}
