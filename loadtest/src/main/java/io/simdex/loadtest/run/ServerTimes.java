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
    static final long SETTLE_MILLIS = 5_000;
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

    /**
     * The run's handling times since {@link #reset}, or null if the server does not keep them.
     * A server counts a call when its stream closes, which may come after the client already has
     * the answer (on a loaded machine, many calls after): so this asks again, for up to
     * {@link #SETTLE_MILLIS}, until the server counts the {@code calls} the client completed.
     */
    ServerHandling read(long calls) throws InterruptedException {
        if (!counting) {
            return null;
        }
        MethodHandlingTime t = ask(false);
        for (long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(SETTLE_MILLIS);
             t != null && t.getCalls() < calls && System.nanoTime() - deadline < 0; ) {
            Thread.sleep(10);
            t = ask(false);
        }
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
