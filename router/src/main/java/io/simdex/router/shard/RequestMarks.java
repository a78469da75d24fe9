package io.simdex.router.shard;

import io.grpc.Status;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The replicas one request's writes left behind, marked durably once, when the request ends,
 * instead of once per write phase. While a scope is open on a thread, a {@link ReplicaSet}
 * write started there whose quorum has it, with a serving replica that failed or ran late,
 * stops reads from that replica at once ({@link ReplicaSet.Behind#suspect}) and answers its
 * phase without waiting for Raft; {@link #close} then marks each such node with one put issued
 * after the last phase, and waits for it.
 *
 * <h2>Why the guarantee holds</h2>
 * A write is acknowledged when its request answers, which is after {@link #close} returned:
 * every replica that missed any of its phases is durably marked by then, with a put issued
 * after that replica failed or ran late (ops/docs/CLUSTER.md, "What an acknowledged write
 * guarantees"). Phases in between are not acknowledged to anyone: later phases of the same
 * request, and its reads, already avoid the replica (it is suspect locally). A request that
 * fails half way still marks what it left behind, since readers may see its partial writes.
 * A phase that settles after its request ended (it had already failed the request) finds the
 * scope closed and waits for its own mark, as a write outside any scope does.
 *
 * <p>A scope belongs to the thread that opened it; phases settle on other threads, hence the lock.
 */
public final class RequestMarks implements AutoCloseable {
    private static final ThreadLocal<RequestMarks> CURRENT = new ThreadLocal<>();

    private final RequestMarks outer;
    /** Nodes to mark, per map's marker (node numbers are the map's). */
    private final Map<ReplicaSet.Behind, Set<Integer>> pending = new LinkedHashMap<>(); // guarded by this
    private boolean closed; // guarded by this

    private RequestMarks(RequestMarks outer) {
        this.outer = outer;
    }

    /** Opens a scope on this thread, until {@link #close}. */
    public static RequestMarks open() {
        RequestMarks m = new RequestMarks(CURRENT.get());
        CURRENT.set(m);
        return m;
    }

    /** The scope open on this thread, or null. */
    static RequestMarks current() {
        return CURRENT.get();
    }

    /** Takes the scope open on this thread off it (null if none), for writes that outlive the request; {@link #resume} puts it back. */
    static RequestMarks suspend() {
        RequestMarks m = CURRENT.get();
        CURRENT.remove();
        return m;
    }

    /** Puts back what {@link #suspend} took. */
    static void resume(RequestMarks suspended) {
        if (suspended != null) {
            CURRENT.set(suspended);
        } else {
            CURRENT.remove();
        }
    }

    /** Records {@code node} for marking at the end of the request; false if the request has ended (mark it now). */
    synchronized boolean defer(ReplicaSet.Behind behind, int node) {
        if (closed) {
            return false;
        }
        pending.computeIfAbsent(behind, b -> new LinkedHashSet<>()).add(node);
        return true;
    }

    /**
     * Marks every recorded node (one put each, issued now) and waits until all are durable.
     * Throws UNAVAILABLE naming the nodes if a mark cannot be made: the request must then not
     * be acknowledged.
     */
    @Override
    public void close() {
        if (outer != null) {
            CURRENT.set(outer);
        } else {
            CURRENT.remove();
        }
        Map<ReplicaSet.Behind, Set<Integer>> marks;
        synchronized (this) {
            closed = true;
            marks = pending;
        }
        if (marks.isEmpty()) {
            return;
        }
        List<Integer> nodes = new ArrayList<>();
        List<CompletableFuture<?>> durable = new ArrayList<>();
        marks.forEach((behind, ns) -> ns.forEach(n -> {
            nodes.add(n);
            durable.add(ReplicaSet.safely(behind::mark, n));
        }));
        try {
            CompletableFuture.allOf(durable.toArray(new CompletableFuture<?>[0])).join();
        } catch (CompletionException e) {
            throw Status.UNAVAILABLE.withDescription("write applied on its write quorum but not acknowledged: replica node(s) " + nodes
                    + " missed it and could not be marked behind (" + Status.fromThrowable(e.getCause())
                    + "); it may be partly applied, and retrying it is safe").asRuntimeException();
        }
    }
}
