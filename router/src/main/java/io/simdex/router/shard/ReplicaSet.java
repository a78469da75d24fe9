package io.simdex.router.shard;

import io.grpc.Context;
import io.grpc.Status;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.BinaryOperator;
import java.util.function.Function;
import java.util.function.IntPredicate;

/**
 * The nodes that keep a group of partitions, seen as one shard. A read asks one serving replica
 * and fails over to the next on UNAVAILABLE or a missed deadline (replicas the failure detector
 * reports dead are asked last). A write goes to every replica and succeeds when
 * {@code writeQuorum} serving replicas and every incoming one (a copy in progress, which must
 * not miss a write) have it, and every other serving replica has it too or is durably marked
 * as having missed it ({@link Behind}).
 */
public final class ReplicaSet implements ShardClient {
    private final ShardClient[] serving;
    private final int[] servingNodes;
    private final ShardClient[] incoming;
    private final int[] incomingNodes;
    private final int writeQuorum;
    private final IntPredicate live;
    private final IntPredicate readable;
    private final long hedgeMillis;
    private final long graceMillis;
    private final Behind behind;
    /** Fires hedged reads and ends writes' grace; one daemon thread is plenty, it only starts calls and marks. */
    private static final ScheduledThreadPoolExecutor TIMERS = new ScheduledThreadPoolExecutor(1, r -> {
        Thread t = new Thread(r, "replica-timers");
        t.setDaemon(true);
        return t;
    });

    static {
        TIMERS.setRemoveOnCancelPolicy(true); // most writes cancel their grace timer: keep the queue short
    }

    /** Where replicas that missed a write are marked behind. */
    @FunctionalInterface
    public interface Behind {
        /**
         * Marks {@code node} as having missed a write the other replicas have; completes once the
         * mark is durable (a failure leaves the write unacknowledged).
         */
        CompletableFuture<Void> mark(int node);

        /**
         * Stops reads from {@code node} at once, before its durable {@link #mark} (made at the
         * end of the request, see {@link RequestMarks}); counts the report. Nothing by default.
         */
        default void suspect(int node) {
        }
    }

    /**
     * @param servingNodes node numbers of {@code serving}, for {@code live}
     * @param live         whether the failure detector considers a node up
     */
    public ReplicaSet(List<ShardClient> serving, int[] servingNodes, List<ShardClient> incoming, int[] incomingNodes,
            int writeQuorum, IntPredicate live) {
        this(serving, servingNodes, incoming, incomingNodes, writeQuorum, live, live, 0, 0, node -> CompletableFuture.completedFuture(null));
    }

    /**
     * @param readable    whether to read from a node first (live, and not known to have missed writes);
     *                    writes go to every live node regardless, so a node that is behind catches up
     * @param hedgeMillis 0, or: when the first replica has not answered a read after this long,
     *                    ask the second too and take whichever answers first (a hedged read:
     *                    trades a little load for a shorter tail when one node stalls)
     * @param graceMillis 0 (wait for every replica, each bounded by its own timeout), or: how long
     *                    at least a write the quorum has waits for the other serving replicas
     *                    before it marks them behind and is acknowledged (twice as long as the
     *                    quorum took, if that is longer)
     * @param behind      told the node number of a serving replica that failed (or was skipped
     *                    for, or is late with) a write the quorum has: that replica is now behind
     */
    public ReplicaSet(List<ShardClient> serving, int[] servingNodes, List<ShardClient> incoming, int[] incomingNodes,
            int writeQuorum, IntPredicate live, IntPredicate readable, long hedgeMillis, long graceMillis, Behind behind) {
        if (serving.isEmpty() || writeQuorum < 1 || writeQuorum > serving.size()) {
            throw new IllegalArgumentException("write quorum " + writeQuorum + " of " + serving.size() + " replicas");
        }
        this.serving = serving.toArray(new ShardClient[0]);
        this.servingNodes = servingNodes.clone();
        this.incoming = incoming.toArray(new ShardClient[0]);
        this.incomingNodes = incomingNodes.clone();
        this.writeQuorum = writeQuorum;
        this.live = live;
        this.readable = readable;
        this.hedgeMillis = hedgeMillis;
        this.graceMillis = graceMillis;
        this.behind = behind;
    }

    /** Whether a failed call should be retried on another replica. */
    static boolean failsOver(Throwable t) {
        Status.Code code = Status.fromThrowable(t).getCode();
        return code == Status.Code.UNAVAILABLE || code == Status.Code.DEADLINE_EXCEEDED;
    }

    private <T> CompletableFuture<T> read(Function<ShardClient, CompletableFuture<T>> call) {
        List<ShardClient> order = new ArrayList<>(serving.length);
        for (int pass = 0; pass < 2; pass++) { // live replicas first, then the rest
            for (int i = 0; i < serving.length; i++) {
                if (readable.test(servingNodes[i]) == (pass == 0)) {
                    order.add(serving[i]);
                }
            }
        }
        CompletableFuture<T> out = new CompletableFuture<>();
        // Failover calls start on a gRPC thread: carry the client's Context (its deadline) there.
        Context context = Context.current();
        attempt(order, 0, call, out, context);
        if (hedgeMillis > 0 && order.size() > 1) {
            TIMERS.schedule(() -> {
                if (!out.isDone()) {
                    context.run(() -> safely(call, order.get(1)).whenComplete((v, t) -> {
                        if (t == null) {
                            out.complete(v);
                        }
                    }));
                }
            }, hedgeMillis, TimeUnit.MILLISECONDS);
        }
        return out;
    }

    private static <T> void attempt(List<ShardClient> order, int i, Function<ShardClient, CompletableFuture<T>> call, CompletableFuture<T> out,
            Context context) {
        safely(call, order.get(i)).whenComplete((value, failure) -> {
            if (failure == null) {
                out.complete(value);
            } else if (i + 1 < order.size() && failsOver(failure)) {
                context.run(() -> attempt(order, i + 1, call, out, context));
            } else {
                out.completeExceptionally(failure);
            }
        });
    }

    /**
     * Sends to every replica and answers once each serving replica has answered or been marked
     * behind: success if {@code writeQuorum} serving replicas and every incoming one have the
     * write, with {@code merge} over the serving answers. A serving replica that failed the write,
     * or has not answered {@code graceMillis} after the quorum and the incoming replicas did (or,
     * if longer, twice as long as they took), is marked behind, and the write is acknowledged
     * only once every such mark is durable: if one cannot be made, the write is answered
     * UNAVAILABLE rather than acknowledged with a stale replica nobody knows of. Inside a
     * {@link RequestMarks} scope the marks are left to the end of the request (the replica is
     * no longer read from at once), and the write answers without them. Waiting for the replicas beyond the quorum (or for their marks) keeps
     * read-after-write within a router: a Dedup right after an Insert must not read a replica
     * the Insert is still being applied to, and a marked replica is read only when no other is.
     * When every replica answers, no mark is made: that path costs nothing more.
     */
    private <T> CompletableFuture<T> write(Function<ShardClient, CompletableFuture<T>> call, BinaryOperator<T> merge) {
        return write(call, merge, RequestMarks.current());
    }

    /** As {@link #write(Function, BinaryOperator)}; {@code request} null: the write waits for its own marks, even in a scope. */
    private <T> CompletableFuture<T> write(Function<ShardClient, CompletableFuture<T>> call, BinaryOperator<T> merge, RequestMarks request) {
        int n = serving.length + incoming.length;
        Tally<T> tally = new Tally<>(merge, request);
        for (int i = 0; i < n; i++) {
            boolean isServing = i < serving.length;
            int node = isServing ? servingNodes[i] : incomingNodes[i - serving.length];
            ShardClient replica = isServing ? serving[i] : incoming[i - serving.length];
            // A replica the failure detector reports dead is not waited for, unless it is all we have.
            CompletableFuture<T> c = live.test(node) || n == 1 ? safely(call, replica)
                    : CompletableFuture.failedFuture(Status.UNAVAILABLE.withDescription("replica node " + node + " is down").asRuntimeException());
            int replicaIndex = i;
            c.whenComplete((v, t) -> tally.settled(replicaIndex, v, t));
        }
        return tally.out;
    }

    /** The answers of one write so far. */
    private final class Tally<T> {
        final CompletableFuture<T> out = new CompletableFuture<>();
        final BinaryOperator<T> merge;
        final boolean[] answered = new boolean[serving.length + incoming.length];
        int pending = answered.length;
        int acks;
        int incomingAcks;
        T value;
        Throwable firstFailure;
        final List<Integer> failedNodes = new ArrayList<>(1);
        final long started = System.nanoTime();
        /** Set once the outcome is chosen: later answers change nothing. */
        boolean decided;
        ScheduledFuture<?> grace;

        /** The request's scope, if its marks are made when it ends; else null (each write waits for its own). */
        final RequestMarks request;

        Tally(BinaryOperator<T> merge, RequestMarks request) {
            this.merge = merge;
            this.request = request;
        }

        synchronized void settled(int i, T v, Throwable failure) {
            answered[i] = true;
            pending--;
            if (decided) {
                return;
            }
            boolean isServing = i < serving.length;
            if (failure == null) {
                if (isServing) {
                    value = acks == 0 ? v : merge.apply(value, v);
                    acks++;
                } else {
                    incomingAcks++;
                }
            } else if (!isServing || !failsOver(failure)) {
                // An incoming replica must not miss a write; other errors (bad request) are the request's.
                decide();
                out.completeExceptionally(failure);
                return;
            } else {
                firstFailure = firstFailure == null ? failure : firstFailure;
                failedNodes.add(servingNodes[i]);
            }
            if (pending == 0) {
                decide();
                if (quorum()) {
                    acknowledge(failedNodes);
                } else {
                    out.completeExceptionally(Status.UNAVAILABLE.withDescription("write quorum not reached: " + acks + " of "
                            + serving.length + " replicas acknowledged, " + writeQuorum + " needed; first failure: "
                            + Status.fromThrowable(firstFailure)).asRuntimeException());
                }
            } else if (grace == null && graceMillis > 0 && quorum()) {
                // Late means late beside the quorum: a false mark costs the node a full pull, so
                // when every replica is slow (a busy host) the rest get twice as long again as
                // the quorum took, and marks do not feed the load that caused them.
                long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
                grace = TIMERS.schedule(this::graceOver, Math.max(graceMillis, 2 * tookMillis), TimeUnit.MILLISECONDS);
            }
        }

        private boolean quorum() {
            return acks >= writeQuorum && incomingAcks == incoming.length;
        }

        private void decide() {
            decided = true;
            if (grace != null) {
                grace.cancel(false);
            }
        }

        /** The quorum has the write and the rest are late: they are marked behind like the ones that failed. */
        private synchronized void graceOver() {
            if (decided) {
                return;
            }
            decide();
            List<Integer> behind = new ArrayList<>(failedNodes);
            for (int i = 0; i < serving.length; i++) {
                if (!answered[i]) {
                    behind.add(servingNodes[i]);
                }
            }
            acknowledge(behind);
        }

        private void acknowledge(List<Integer> behind) {
            List<Integer> now = new ArrayList<>(behind.size());
            for (int node : behind) {
                ReplicaSet.this.behind.suspect(node);
                if (request == null || !request.defer(ReplicaSet.this.behind, node)) {
                    now.add(node);
                }
            }
            if (now.isEmpty()) {
                out.complete(value);
                return;
            }
            CompletableFuture<?>[] marks = new CompletableFuture<?>[now.size()];
            for (int k = 0; k < marks.length; k++) {
                marks[k] = safely(ReplicaSet.this.behind::mark, now.get(k));
            }
            T acknowledged = value;
            CompletableFuture.allOf(marks).whenComplete((ok, failure) -> {
                if (failure == null) {
                    out.complete(acknowledged);
                } else {
                    out.completeExceptionally(Status.UNAVAILABLE.withDescription("write applied on " + acks + " of " + serving.length
                            + " replicas but not acknowledged: replica node(s) " + now + " missed it and could not be marked behind ("
                            + Status.fromThrowable(failure) + "); it may be partly applied, and retrying it is safe").asRuntimeException());
                }
            });
        }
    }

    static <A, T> CompletableFuture<T> safely(Function<A, CompletableFuture<T>> call, A replica) {
        try {
            return call.apply(replica);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private static <T> T first(T a, T b) {
        return a;
    }

    @Override
    public CompletableFuture<Found[]> probe(String c, long[] gens, int table, long[] fps, int maxDistance) {
        return read(r -> r.probe(c, gens, table, fps, maxDistance));
    }

    @Override
    public CompletableFuture<Integer> bucketAdd(String c, long gen, int table, long[] fps, boolean newFingerprints) {
        return write(r -> r.bucketAdd(c, gen, table, fps, newFingerprints), ReplicaSet::first);
    }

    @Override
    public CompletableFuture<Found[][]> probeMany(String c, long[] gens, int[] tables, long[][] fps, int[] maxDistances) {
        return read(r -> r.probeMany(c, gens, tables, fps, maxDistances));
    }

    @Override
    public CompletableFuture<Probed> probeResolving(String c, long[] gens, int[] tables, long[][] fps, int[] maxDistances,
            byte[] resolvePartitions, int limit, long[] flips, int nearest) {
        // One replica answers both: its ids are what resolveIds would read from this group.
        return read(r -> r.probeResolving(c, gens, tables, fps, maxDistances, resolvePartitions, limit, flips, nearest));
    }

    @Override
    public CompletableFuture<Integer> bucketAddMany(String c, long gen, int[] tables, long[][] fps, boolean[] newFingerprints) {
        return write(r -> r.bucketAddMany(c, gen, tables, fps, newFingerprints), ReplicaSet::first);
    }

    @Override
    public CompletableFuture<Integer> bucketRemove(String c, long gen, int table, long[] fps) {
        return write(r -> r.bucketRemove(c, gen, table, fps), ReplicaSet::first);
    }

    @Override
    public CompletableFuture<Previous> bindIds(String c, long gen, String[] ids, long[] fps) {
        return write(r -> r.bindIds(c, gen, ids, fps), ReplicaSet::first);
    }

    @Override
    public CompletableFuture<Previous> unbindIds(String c, String[] ids) {
        return write(r -> r.unbindIds(c, ids), ReplicaSet::first);
    }

    /** "Had no ids before" only if no replica had any: a replica that missed writes must not make a known fingerprint look new. */
    @Override
    public CompletableFuture<boolean[]> attachIds(String c, long gen, long[] fps, String[] ids) {
        return write(r -> r.attachIds(c, gen, fps, ids), ReplicaSet::and);
    }

    @Override
    public CompletableFuture<boolean[]> detachIds(String c, long gen, long[] fps, String[] ids) {
        return write(r -> r.detachIds(c, gen, fps, ids), ReplicaSet::and);
    }

    private static boolean[] and(boolean[] a, boolean[] b) {
        boolean[] out = a.clone();
        for (int i = 0; i < out.length; i++) {
            out[i] &= b[i];
        }
        return out;
    }

    @Override
    public CompletableFuture<Ids[]> resolveIds(String c, long[] gens, long[] fps, int limit) {
        return read(r -> r.resolveIds(c, gens, fps, limit));
    }

    /** Per node, not per group: the router asks nodes directly. */
    @Override
    public CompletableFuture<ShardStats> stats(String c, long minGeneration) {
        return read(r -> r.stats(c, minGeneration));
    }

    @Override
    public CompletableFuture<Integer> expireBefore(String c, long minGeneration) {
        return write(r -> r.expireBefore(c, minGeneration), ReplicaSet::first);
    }

    @Override
    public CompletableFuture<Integer> prepareGeneration(String c, long generation, boolean evenIfUnused) {
        return write(r -> r.prepareGeneration(c, generation, evenIfUnused), ReplicaSet::first);
    }

    @Override
    public CompletableFuture<Integer> putTexts(String c, long gen, String[] ids, String[] texts) {
        return write(r -> r.putTexts(c, gen, ids, texts), ReplicaSet::first);
    }

    @Override
    public CompletableFuture<Integer> dropTexts(String c, long gen, String[] ids) {
        return write(r -> r.dropTexts(c, gen, ids), ReplicaSet::first);
    }

    @Override
    public CompletableFuture<String[]> getTexts(String c, long[] gens, String[] ids) {
        return read(r -> r.getTexts(c, gens, ids));
    }

    @Override
    public CompletableFuture<Bound> lookupIds(String c, long[] gens, String[] ids) {
        return read(r -> r.lookupIds(c, gens, ids));
    }

    /** The first replica a read would ask: its positions are where an export's next pages are read. */
    @Override
    public CompletableFuture<ExportIdsPage> exportIds(String c, long[] gens, byte[] partitions, long generation, int mapGeneration, int segment,
            int limit) {
        return onNode(readNode()).exportIds(c, gens, partitions, generation, mapGeneration, segment, limit);
    }

    /** The first serving replica that is readable (live, not behind), else the first. */
    @Override
    public int readNode() {
        for (int i = 0; i < serving.length; i++) {
            if (readable.test(servingNodes[i])) {
                return servingNodes[i];
            }
        }
        return servingNodes[0];
    }

    @Override
    public ShardClient onNode(int node) {
        int i = indexOf(node);
        return i < 0 ? null : serving[i];
    }

    private int indexOf(int node) {
        for (int i = 0; i < servingNodes.length; i++) {
            if (servingNodes[i] == node) {
                return i;
            }
        }
        return -1;
    }

    @Override
    public CompletableFuture<Found> lookupContent(String c, long[] gens, byte[][] hashes) {
        return read(r -> r.lookupContent(c, gens, hashes));
    }

    @Override
    public CompletableFuture<Integer> recordContent(String c, long gen, byte[][] hashes, long[] fps) {
        return write(r -> r.recordContent(c, gen, hashes, fps), ReplicaSet::first);
    }

    /**
     * Check-and-add on every replica; the answer is the first serving replica's that has it
     * (each replica's check-and-add is atomic, so concurrent crawlers agree per replica).
     */
    @Override
    public CompletableFuture<boolean[]> checkUrls(String job, byte[][] hashes, long now, long expiresAt, boolean checkOnly) {
        return write(r -> r.checkUrls(job, hashes, now, expiresAt, checkOnly), ReplicaSet::first);
    }

    @Override
    public CompletableFuture<Long> sweepUrls(long now) {
        return write(r -> r.sweepUrls(now), ReplicaSet::first);
    }

    @Override
    public CompletableFuture<Boolean> dropUrlJob(String job) {
        return write(r -> r.dropUrlJob(job), Boolean::logicalOr);
    }

    /**
     * Locks on every replica one after another, in replica order, so two routers never each hold
     * one replica's locks while waiting for the other's; the largest stamp. A replica that is
     * down is skipped as long as the write quorum still holds the locks.
     *
     * <p>The intents pending on the keys are those of every replica that answered, and the
     * caller judges documents by them (stored only where their intent reached every shard of
     * their keys). A replica known to have missed writes may have missed an intent, so among
     * several replicas the locks need one that is readable: with a write quorum of 1 of 2, an
     * intent left on one replica while the other failed it, then that replica down, would
     * otherwise be judged by the other's empty list and a document the holder had half
     * written dropped. {@link #recordIntent} marks such a replica before its holder writes.
     */
    @Override
    public CompletableFuture<Granted> lockBuckets(String c, int[] keys, long token, int leaseMillis, int waitMillis) {
        record Locks(Granted granted, int serving, int readable) {
        }
        CompletableFuture<Locks> chain = CompletableFuture.completedFuture(new Locks(new Granted(0, List.of()), 0, 0));
        int n = serving.length + incoming.length;
        for (int i = 0; i < n; i++) {
            boolean isServing = i < serving.length;
            ShardClient replica = isServing ? serving[i] : incoming[i - serving.length];
            boolean authoritative = isServing && readable.test(servingNodes[i]);
            chain = chain.thenCompose(acc -> replica.lockBuckets(c, keys, token, leaseMillis, waitMillis)
                    .handle((granted, failure) -> {
                        if (failure == null) {
                            // Any replica's pending intents count: one that missed the record still holds the lock.
                            return new Locks(acc.granted.merge(granted), acc.serving + (isServing ? 1 : 0), acc.readable + (authoritative ? 1 : 0));
                        }
                        if (isServing && failsOver(failure)) {
                            return acc;
                        }
                        throw failure instanceof RuntimeException r ? r : new java.util.concurrent.CompletionException(failure);
                    }));
        }
        return chain.thenApply(acc -> {
            if (acc.serving < writeQuorum) {
                throw Status.UNAVAILABLE.withDescription("bucket locks held on " + acc.serving + " of " + serving.length
                        + " replicas, " + writeQuorum + " needed").asRuntimeException();
            }
            if (serving.length > 1 && acc.readable == 0) {
                throw Status.UNAVAILABLE.withDescription("bucket locks held only on replicas that missed writes (" + acc.serving + " of "
                        + serving.length + "): their pending intents may be incomplete until they catch up").asRuntimeException();
            }
            return acc.granted;
        });
    }

    @Override
    public CompletableFuture<Integer> unlockBuckets(String c, int[] keys, long token, long stamp, boolean keepPending) {
        return write(r -> r.unlockBuckets(c, keys, token, stamp, keepPending), ReplicaSet::first);
    }

    /**
     * The fewest keys any replica that answered holds: fewer than asked means a lock was lost
     * somewhere. A replica that missed the intent is marked behind before this answers, even
     * inside a {@link RequestMarks} scope: the intent is read by the next holder of its keys,
     * not only by this request, and the holder writes its documents once this answers, so a
     * router killed before the end of its request must not leave that replica unmarked
     * ({@link #lockBuckets}).
     */
    @Override
    public CompletableFuture<Integer> recordIntent(String c, int[] keys, long token, long stamp, byte[] docs) {
        return write(r -> r.recordIntent(c, keys, token, stamp, docs), Math::min, null);
    }

    @Override
    public CompletableFuture<Integer> settleIntents(String c, long[] tokens) {
        return write(r -> r.settleIntents(c, tokens), ReplicaSet::first);
    }

    /** The nodes' clients belong to the cluster view. */
    @Override
    public void close() {
    }
}
