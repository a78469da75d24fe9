package io.simdex.router.cluster;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.simdex.proto.v1.MoveProgress;
import io.simdex.proto.v1.NodeStatusRequest;
import io.simdex.proto.v1.PartitionsRequest;
import io.simdex.proto.v1.PlacedNode;
import io.simdex.proto.v1.PullProgress;
import io.simdex.proto.v1.PullRequest;
import io.simdex.proto.v1.SetEpochRequest;
import io.simdex.router.cluster.MovePlan.Batch;
import io.simdex.router.cluster.PartitionMap.Move;
import io.simdex.router.transport.HandlerThreads;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Deque;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.logging.Logger;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static io.simdex.router.cluster.MovePlan.ROUND;
import static io.simdex.router.cluster.MovePlan.batches;
import static io.simdex.router.cluster.MovePlan.keepsAll;
import static io.simdex.router.cluster.MovePlan.moves;
import static io.simdex.router.cluster.MovePlan.rounds;

/**
 * Moves partition replicas between nodes while the cluster serves. Moves go in batches (same
 * source and target), and batches in rounds of up to {@link MovePlan#ROUND} batches from different
 * sources, copied at once: a node joining N others takes a batch from each of up to
 * {@link MovePlan#ROUND} of them at a time rather than one stream's worth. A drain copies from the other
 * replicas of the drained node's partitions, several nodes at once, when that takes no more rounds
 * than copying from the drained node, and whenever the drained node is down ({@link MovePlan#batches}),
 * so a node lost for good can be drained. First each target drops what it keeps of partitions it
 * does not serve ({@link #clearTargets}). Then, for each round:
 * <ol>
 * <li>epoch e+1: each target is "incoming" for its batch, so every write now reaches it too;
 *     every live node is told the epoch, which fences out writes routed by an older map;</li>
 * <li>each target pulls its partitions from a live serving replica; writes made meanwhile reach
 *     it directly, deletes are kept by its tombstones; a source marked behind since the epoch
 *     (it missed a write routed by the older map) has its batch abandoned, which can be known
 *     only {@link #SETTLE} after the epoch ({@link #requireNotBehind});</li>
 * <li>a later epoch: each target replaces its source; nodes are told;</li>
 * <li>the sources drop their copies.</li>
 * </ol>
 * Reads keep going to the old replicas until step 3, which runs while the rounds after it copy,
 * so that the rounds' waits for {@link #SETTLE} overlap the copies. A batch whose pull fails is
 * abandoned once the others of its round have ended, which finish as above; a move that fails
 * otherwise (an epoch not taken, a node that does not catch up) abandons every copy it has not
 * switched in. Every map change is a compare-and-set on the epoch: if anyone else changed the
 * map meanwhile, the move stops instead of overwriting.
 */
public final class Rebalancer {
    private static final Logger LOG = Logger.getLogger(Rebalancer.class.getName());
    /**
     * How long after a round's epoch a write routed by the older map may still get a source marked
     * behind. Each node's SetEpoch waits for the calls routed by an older map, so when the epoch
     * is pushed, each of them has ended on the source or was never taken there; its router learns
     * of a failure within its write timeout, and the write is acknowledged only once the mark has
     * committed, within {@link MissedWrites#MARK_COMMIT_TIMEOUT}. A round is switched once it has
     * passed, while the rounds after it copy.
     */
    static final Duration SETTLE = Duration.ofMillis(ClusterView.WRITE_TIMEOUT_MILLIS).plus(MissedWrites.MARK_COMMIT_TIMEOUT)
            .plusSeconds(3);

    private final PartitionMapStore store;
    private final ClusterView view;
    private final Supplier<Set<String>> liveIds;
    private final Duration settle;

    public Rebalancer(PartitionMapStore store, ClusterView view, Supplier<Set<String>> liveIds) {
        this(store, view, liveIds, SETTLE);
    }

    /** With rounds waiting {@code settle} after their epoch before their sources are checked (tests shorten it). */
    Rebalancer(PartitionMapStore store, ClusterView view, Supplier<Set<String>> liveIds, Duration settle) {
        this.store = store;
        this.view = view;
        this.liveIds = liveIds;
        this.settle = settle;
    }

    /** Places a joined node and moves partitions to it until the shares are even. */
    public synchronized void addNode(PlacedNode node, Consumer<MoveProgress> progress) {
        PartitionMap map = store.update(m -> m.withNode(node.toBuilder().setDraining(false).build()));
        push(map);
        balance(progress);
    }

    /** Moves every replica off a node. */
    public synchronized void drain(String nodeId, Consumer<MoveProgress> progress) {
        PartitionMap map = store.update(m -> m.withDraining(nodeId, true));
        push(map);
        balance(progress);
    }

    /** Forgets a drained node. */
    public synchronized PartitionMap remove(String nodeId) {
        PartitionMap map = store.update(m -> m.withoutNode(nodeId));
        push(map);
        return map;
    }

    private void balance(Consumer<MoveProgress> caller) {
        // The pulls of a round report from their own threads; the caller's stream takes one at a time.
        Consumer<MoveProgress> progress = p -> {
            synchronized (caller) {
                caller.accept(p);
            }
        };
        PartitionMap first = abandonLeftovers(store.current());
        PartitionMap map = first;
        List<Batch> planned = batches(first, first.balancingMoves(), liveIds.get());
        ExecutorService pulls = HandlerThreads.pool(ROUND, "rebalance-pull");
        Set<Integer> down;
        try {
            down = clearTargets(map, planned, pulls);
        } catch (RuntimeException e) {
            pulls.shutdownNow();
            throw e;
        }
        List<Batch> batches = planned.stream().filter(b -> !down.contains(b.target())).toList();
        RuntimeException failure = down.isEmpty() ? null : Status.UNAVAILABLE.withDescription(down.stream()
                .map(to -> first.nodes().get(to).getId()).collect(Collectors.joining(", ")) + ", to receive partitions, down: "
                + (moves(planned).size() - moves(batches).size()) + " partition replicas stay where they are; run the command again once"
                + " back").asRuntimeException();
        List<List<Batch>> rounds = rounds(batches);
        Tally tally = new Tally(moves(batches).size(), progress);
        progress.accept(MoveProgress.newBuilder().setPartitionsTotal(tally.total).setEpoch(map.epoch())
                .setStage(tally.total == 0 ? (failure == null ? "balanced: nothing to move" : "nothing can move now") : "moving " + tally.total + " partition replicas in " + batches.size()
                        + " batches, " + rounds.size() + " rounds").build());
        // Rounds copy one after another; each is switched once SETTLE has passed since its
        // epoch (settleOf), while the rounds after it copy: the waits overlap the copies.
        // Rounds whose pull failed, or whose partitions the next round moves again, are
        // finished before it starts.
        Deque<Round> copied = new ArrayDeque<>();
        Round starting = null;
        try {
            for (List<Batch> round : rounds) {
                boolean finishAll = copied.stream().anyMatch(r -> r.pullFailed() || r.touches(round));
                try {
                    while (!copied.isEmpty() && (finishAll || copied.peek().settled())) {
                        map = finishOldest(copied, map);
                    }
                } catch (Failed f) {
                    map = f.map;
                    failure = also(failure, f.cause);
                    break;
                }
                awaitCaughtUp(map, tally);
                starting = new Round(map, round, tally);
                map = starting.start(pulls);
                map = starting.awaitPulls(map);
                copied.add(starting);
                starting = null;
            }
            while (!copied.isEmpty()) {
                try {
                    map = finishOldest(copied, map);
                } catch (Failed f) {
                    map = f.map;
                    failure = also(failure, f.cause);
                }
            }
        } catch (RuntimeException e) {
            // No batch's own failure (those are Failed, caught above): a push or a map change
            // refused, a node that does not catch up, an interrupt.
            if (starting != null) {
                copied.add(starting);
            }
            abandonUnswitched(copied, e);
            throw e;
        } finally {
            pulls.shutdownNow();
        }
        if (failure != null) {
            throw failure;
        }
        progress.accept(MoveProgress.newBuilder().setPartitionsTotal(tally.total).setPartitionsDone(tally.done).setRecords(tally.records)
                .setEpoch(map.epoch()).setDone(true).setStage("done").build());
    }

    /** {@code first}, with {@code next} suppressed in it; {@code next} when there is no first. */
    private static RuntimeException also(RuntimeException first, RuntimeException next) {
        if (first == null) {
            return next;
        }
        first.addSuppressed(next);
        return first;
    }

    /**
     * Drops at each target what it keeps of partitions it neither serves nor takes writes for,
     * before any of those is incoming there: a copy left on a node by an earlier move (a drop it
     * missed while it was down, a move given back, a node drained while down and added again)
     * lacks the deletes and rebinds made since; a pull, which adds to what is there, would bring
     * those records back, and any such copy counts in the collection's stats. Nothing writes
     * those partitions there meanwhile: the node is no replica of them, and the epoch keeps
     * older maps' writes out. The live targets are cleared at once, each in one pass over its
     * maps; a live target that cannot be fails the command before anything moves. Returns the
     * targets that are down: their batches are left out of the move, even if they come back
     * during it.
     */
    private Set<Integer> clearTargets(PartitionMap map, List<Batch> batches, ExecutorService pool) {
        Map<Integer, PartitionsRequest.Builder> byTarget = new LinkedHashMap<>();
        for (Batch b : batches) {
            byTarget.computeIfAbsent(b.target(), to -> {
                PartitionsRequest.Builder req = PartitionsRequest.newBuilder();
                for (int p = 0; p < io.simdex.core.Partitions.COUNT; p++) {
                    if (!contains(map.replicas(p), to) && !contains(map.incoming(p), to)) {
                        req.addPartitions(p);
                    }
                }
                return req;
            });
        }
        Set<String> live = liveIds.get();
        Set<Integer> down = byTarget.keySet().stream().filter(to -> !live.contains(map.nodes().get(to).getId())).collect(Collectors.toSet());
        byTarget.keySet().removeAll(down);
        List<Future<Long>> clears = new ArrayList<>();
        byTarget.forEach((to, req) -> clears.add(pool.submit(() -> {
            PlacedNode n = map.nodes().get(to);
            try {
                long dropped = view.node(n.getAddress()).control().withDeadlineAfter(10, TimeUnit.MINUTES)
                        .dropPartitions(req.build()).getChanged();
                if (dropped > 0) {
                    LOG.info(() -> n.getId() + " dropped " + dropped + " records of partitions it does not serve, left by an earlier move");
                }
                return dropped;
            } catch (StatusRuntimeException e) {
                throw Status.UNAVAILABLE.withDescription("could not drop what " + n.getId() + " keeps of partitions it does not serve, before"
                        + " it receives some (" + e.getStatus() + "); nothing moved").withCause(e).asRuntimeException();
            }
        })));
        for (Future<Long> clear : clears) {
            awaitPull(clear);
        }
        return down;
    }

    private static boolean contains(int[] values, int v) {
        return Arrays.stream(values).anyMatch(x -> x == v);
    }

    /**
     * Finishes the oldest copied round. It leaves {@code copied} once finished or {@link Failed}
     * (which abandoned what it did not switch); anything else leaves it there, for
     * {@link #abandonUnswitched}.
     */
    private static PartitionMap finishOldest(Deque<Round> copied, PartitionMap map) {
        try {
            PartitionMap next = copied.peek().finish(map);
            copied.poll();
            return next;
        } catch (Failed f) {
            copied.poll();
            throw f;
        }
    }

    /**
     * After a failure that is no batch's own, abandons the copies of {@code rounds} that are
     * still incoming in the map: an incoming replica must take every write of its partitions,
     * so a target left so by a failed command would fail them once it went down, until the next
     * command abandoned it. Not when the map was changed by someone else ({@code ABORTED}): that
     * map is not this move's to change. Runs with the thread's interrupt cleared, so that an
     * interrupted move still reaches the map and the nodes.
     */
    private void abandonUnswitched(Collection<Round> rounds, RuntimeException cause) {
        if (rounds.isEmpty() || Status.fromThrowable(cause).getCode() == Status.Code.ABORTED) {
            return;
        }
        boolean interrupted = Thread.interrupted();
        try {
            PartitionMap current = store.current();
            List<Batch> left = new ArrayList<>();
            for (Round round : rounds) {
                for (Batch b : round.batches) {
                    List<Move> still = b.moves().stream()
                            .filter(m -> contains(current.incoming(m.partition()), b.target())).toList();
                    if (!still.isEmpty()) {
                        left.add(new Batch(b.source(), b.target(), still));
                    }
                }
            }
            if (!left.isEmpty()) {
                int partitions = moves(left).size();
                LOG.warning(() -> "abandoning " + partitions + " copied partitions not switched in, after: " + cause);
                abandon(current, left);
            }
        } catch (RuntimeException e) {
            cause.addSuppressed(e);
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * A move's partitions switched and records copied so far, and where its progress goes.
     * Written by the thread that runs the move, read by the pulls' threads too.
     */
    private static final class Tally {
        final int total;
        final Consumer<MoveProgress> progress;
        volatile int done;
        /** Records of the batches switched. */
        volatile long records;
        /** Records of the rounds pulled and not switched yet. */
        volatile long unswitched;

        Tally(int total, Consumer<MoveProgress> progress) {
            this.total = total;
            this.progress = progress;
        }

        MoveProgress.Builder sofar(long copying, long epoch) {
            return MoveProgress.newBuilder().setPartitionsTotal(total).setPartitionsDone(done).setRecords(records + unswitched + copying)
                    .setEpoch(epoch);
        }
    }

    /** A round that failed, and the map it left installed. */
    private static final class Failed extends RuntimeException {
        final transient RuntimeException cause;
        final transient PartitionMap map;

        Failed(RuntimeException cause, PartitionMap map) {
            super(cause.getMessage(), cause, false, false);
            this.cause = cause;
            this.map = map;
        }
    }

    /**
     * One round: its batches pulled to their targets at once ({@link #start}, {@link #awaitPulls}),
     * then, once the round has settled, each batch's source checked and the round switched
     * ({@link #finish}): the batches that succeeded replace their sources (they hold complete
     * copies), the failed ones are abandoned.
     */
    private final class Round {
        private final PartitionMap before;
        private final List<Batch> batches;
        private final Tally tally;
        private final int[] sources;
        private final long[] clears;
        private final List<Future<Long>> running = new ArrayList<>();
        private final long[] records;
        private final RuntimeException[] failures;
        /** Batches abandoned while the round's pulls ran: their targets went down. */
        private final boolean[] abandoned;
        private PartitionMap copying;
        private long settledAt;

        Round(PartitionMap map, List<Batch> batches, Tally tally) {
            this.before = map;
            this.batches = batches;
            this.tally = tally;
            sources = batches.stream().mapToInt(b -> sourceOf(map, b)).toArray();
            clears = Arrays.stream(sources).mapToLong(source -> view.clears(map.nodes().get(source).getId())).toArray();
            records = new long[batches.size()];
            failures = new RuntimeException[batches.size()];
            abandoned = new boolean[batches.size()];
        }

        /** Makes the targets incoming and starts their pulls; returns the map installed. */
        PartitionMap start(ExecutorService pulls) {
            copying = before.withIncoming(moves(batches));
            cas(before, copying);
            push(copying);
            settledAt = System.nanoTime() + settleOf(copying).toNanos();
            String stage = "copying " + moves(batches).size() + " partitions " + describe(copying, Arrays.stream(sources), batches);
            AtomicLongArray sofar = new AtomicLongArray(batches.size());
            for (int b = 0; b < batches.size(); b++) {
                int batch = b;
                Batch planned = batches.get(b);
                running.add(pulls.submit(() -> pull(copying, sources[batch], planned.target(), planned.moves(), n -> {
                    sofar.set(batch, n);
                    long all = 0;
                    for (int i = 0; i < sofar.length(); i++) {
                        all += sofar.get(i);
                    }
                    tally.progress.accept(tally.sofar(all, copying.epoch()).setStage(stage).build());
                })));
            }
            return copying;
        }

        /**
         * Waits for the round's pulls; returns the map installed. A batch whose target the failure
         * detector reports down is abandoned at once and its pull cancelled, not once the round's
         * other pulls have ended: an incoming replica must take every write of its partitions, so
         * a dead one fails them until then, which is as long as the slowest copy of the round.
         */
        PartitionMap awaitPulls(PartitionMap current) {
            PartitionMap now = current;
            while (true) {
                now = abandonTargetsDown(now);
                Future<Long> pending = running.stream().filter(f -> !f.isDone()).findFirst().orElse(null);
                if (pending == null) {
                    break;
                }
                try {
                    pending.get(1, TimeUnit.SECONDS); // a condition: every pull ended; looked at again each second for targets down
                } catch (TimeoutException | ExecutionException | CancellationException e) {
                    // outcomes are read below, once all have ended
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt(); // awaitPull below cancels the pulls and fails their batches
                    break;
                }
            }
            for (int b = 0; b < batches.size(); b++) {
                if (abandoned[b]) {
                    continue;
                }
                try {
                    records[b] = awaitPull(running.get(b));
                } catch (RuntimeException e) {
                    failures[b] = e;
                }
            }
            tally.unswitched += Arrays.stream(records).sum();
            return now;
        }

        /** Abandons the batches whose target is reported down, cancelling their pulls; returns the map installed. */
        private PartitionMap abandonTargetsDown(PartitionMap now) {
            Set<String> live = liveIds.get();
            List<Batch> down = new ArrayList<>();
            for (int b = 0; b < batches.size(); b++) {
                String target = copying.nodes().get(batches.get(b).target()).getId();
                if (!abandoned[b] && !live.contains(target)) {
                    abandoned[b] = true;
                    failures[b] = targetDown(target);
                    running.get(b).cancel(true);
                    down.add(batches.get(b));
                }
            }
            return down.isEmpty() ? now : abandon(now, down);
        }

        /** Waits until {@link #SETTLE} has passed since the round's epoch, telling the caller why. */
        private void awaitSettled(PartitionMap current) {
            long left = settledAt - System.nanoTime();
            if (left <= 0) {
                return;
            }
            tally.progress.accept(tally.sofar(0, current.epoch()).setStage("copied; waiting " + TimeUnit.NANOSECONDS.toSeconds(left + 999_999_999)
                    + " s for writes routed by an older map to settle").build());
            try {
                // A deadline, not a condition: no event says that a late mark will not come. Looked
                // at every second for targets gone down: an incoming replica must take every write
                // of its partitions, so a dead one fails them until its batch is abandoned.
                while ((left = settledAt - System.nanoTime()) > 0 && Arrays.stream(failures).anyMatch(f -> f == null)) {
                    TimeUnit.NANOSECONDS.sleep(Math.min(left, TimeUnit.SECONDS.toNanos(1)));
                    failTargetsDown();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw Status.CANCELLED.withDescription("interrupted").asRuntimeException();
            }
        }

        /** Fails the batches whose target the failure detector reports down: they are abandoned, not waited for. */
        private void failTargetsDown() {
            Set<String> live = liveIds.get();
            for (int b = 0; b < batches.size(); b++) {
                String target = copying.nodes().get(batches.get(b).target()).getId();
                if (failures[b] == null && !live.contains(target)) {
                    failures[b] = targetDown(target);
                }
            }
        }

        private static StatusRuntimeException targetDown(String target) {
            return Status.UNAVAILABLE.withDescription(target + ", copied to, went down before its copy was switched in: run the command again"
                    + " once it is back").asRuntimeException();
        }

        /** Whether {@link #SETTLE} has passed since the round's epoch. */
        boolean settled() {
            return System.nanoTime() - settledAt >= 0;
        }

        boolean pullFailed() {
            return Arrays.stream(failures).anyMatch(f -> f != null);
        }

        /** Whether {@code next} moves a partition this round moves. */
        boolean touches(List<Batch> next) {
            Set<Integer> mine = moves(batches).stream().map(Move::partition).collect(Collectors.toSet());
            return moves(next).stream().anyMatch(m -> mine.contains(m.partition()));
        }

        /**
         * Waits for the round to settle (saying so), checks the sources, switches the batches
         * that succeeded on {@code current} and abandons the others; returns the map installed,
         * or throws {@link Failed} with the first failure once that is done.
         */
        PartitionMap finish(PartitionMap current) {
            failTargetsDown();
            if (Arrays.stream(failures).anyMatch(f -> f == null)) {
                try {
                    awaitSettled(current);
                } catch (RuntimeException e) {
                    Arrays.fill(failures, e);
                }
            }
            long copied = 0;
            List<Batch> succeeded = new ArrayList<>();
            List<Batch> failed = new ArrayList<>();
            RuntimeException failure = null;
            for (int b = 0; b < batches.size(); b++) {
                try {
                    if (failures[b] != null) {
                        throw failures[b];
                    }
                    requireNotBehind(copying, sources[b], clears[b]);
                    copied += records[b];
                    succeeded.add(batches.get(b));
                } catch (RuntimeException e) {
                    if (!abandoned[b]) {
                        failed.add(batches.get(b));
                    }
                    if (failure == null) {
                        failure = e;
                    } else if (failure != e) {
                        failure.addSuppressed(e);
                    }
                }
            }
            tally.unswitched -= Arrays.stream(records).sum();
            PartitionMap now = current;
            if (!succeeded.isEmpty()) {
                PartitionMap switched = current.withMovesDone(moves(succeeded));
                try {
                    cas(current, switched);
                    now = switched;
                } catch (RuntimeException e) {
                    if (failure == null) {
                        throw e;
                    }
                    failure.addSuppressed(e);
                    failed.addAll(succeeded); // not switched: abandoned with the failed ones
                }
                if (now == switched) {
                    int moved = moves(succeeded).size();
                    long copiedRecords = copied;
                    tally.done += moved;
                    tally.records += copiedRecords;
                    String what = describe(switched, moves(succeeded).stream().mapToInt(Move::from), succeeded);
                    LOG.info(() -> "moved " + moved + " partitions " + what + ", " + copiedRecords + " records; now " + switched);
                    tally.progress.accept(tally.sofar(0, switched.epoch()).setStage("moved " + moved + " partitions " + what).build());
                    try {
                        push(switched);
                        succeeded.forEach(batch -> dropReplaced(switched, batch));
                    } catch (RuntimeException e) {
                        // Switched, but a node may not know it yet, and a router still routing
                        // by the older map may read a replaced copy there: those stay on disk,
                        // for the next move onto their nodes to drop (clearTargets).
                        if (failure == null) {
                            failure = e;
                        } else {
                            failure.addSuppressed(e);
                        }
                    }
                }
            }
            if (failure != null) {
                throw new Failed(failure, failed.isEmpty() ? now : abandon(now, failed));
            }
            return now;
        }
    }

    /**
     * How long a round of {@code map} waits for late marks: none when W = R, since a write is
     * then acknowledged only when every serving replica took it, and no acknowledged write can
     * leave a source behind.
     */
    private Duration settleOf(PartitionMap map) {
        return map.writeQuorum() >= map.replication() ? Duration.ZERO : settle;
    }

    /**
     * Fails when the source was marked behind since the round's epoch, even if it has caught up
     * and cleared the mark since: a router saw it fail a write its quorum took, so its copy may
     * lack that write (it was readable when the round began: {@link #awaitCaughtUp}). Switched
     * in, the copy would keep lacking it unmarked; and when the replica it replaces is the only
     * other one that took the write (a drain at R=2, W=1), the drop would lose it. Called once
     * {@link #SETTLE} has passed since the epoch, so that no mark for a write routed by the older
     * map is still to come; read from the Raft map, not a router's view of it, which may lag.
     */
    private void requireNotBehind(PartitionMap map, int source, long clearsBefore) {
        String id = map.nodes().get(source).getId();
        if (view.markedBehind(id) || view.clears(id) != clearsBefore) {
            throw Status.UNAVAILABLE.withDescription(id + ", copied from, missed an acknowledged write during the copy: run the command"
                    + " again once it has caught up").asRuntimeException();
        }
    }

    /** A pull's records, or its failure as thrown; interrupted, it is cancelled. */
    private static long awaitPull(Future<Long> pull) {
        try {
            return pull.get();
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
        } catch (InterruptedException e) {
            pull.cancel(true);
            Thread.currentThread().interrupt();
            throw Status.CANCELLED.withDescription("interrupted").asRuntimeException();
        }
    }

    /** "from a, b to c": nodes {@code from}, and the targets of {@code round}. */
    private static String describe(PartitionMap map, IntStream from, List<Batch> round) {
        String sources = from.distinct().mapToObj(n -> map.nodes().get(n).getId()).collect(Collectors.joining(", "));
        String to = round.stream().map(b -> map.nodes().get(b.target()).getId()).distinct().collect(Collectors.joining(", "));
        return "from " + sources + " to " + to;
    }

    /**
     * Copies left "incoming" by a router that died mid-move: they are abandoned (the target
     * stops taking writes and drops its partial copy) before anything is planned.
     */
    private PartitionMap abandonLeftovers(PartitionMap map) {
        List<Move> leftovers = new ArrayList<>();
        for (int p = 0; p < io.simdex.core.Partitions.COUNT; p++) {
            for (int to : map.incoming(p)) {
                leftovers.add(new Move(p, -1, to));
            }
        }
        if (leftovers.isEmpty()) {
            return map;
        }
        PartitionMap back = map.withMovesAbandoned(leftovers);
        cas(map, back);
        push(back);
        Map<Integer, List<Move>> byTarget = new LinkedHashMap<>();
        leftovers.forEach(m -> byTarget.computeIfAbsent(m.to(), k -> new ArrayList<>()).add(m));
        byTarget.forEach((to, moves) -> drop(back, to, moves));
        LOG.info(() -> "abandoned " + leftovers.size() + " unfinished moves of an earlier rebalance");
        return back;
    }

    /**
     * Waits until no live node is catching up: a node still pulling its partitions from peers
     * (after a restart) would pull back a partition that a move has just dropped from it.
     */
    private void awaitCaughtUp(PartitionMap map, Tally tally) {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(30);
        while (true) {
            List<String> catchingUp = new ArrayList<>();
            Set<String> live = liveIds.get();
            for (PlacedNode n : map.nodes()) {
                if (live.contains(n.getId()) && !view.node(n.getAddress()).control()
                        .withDeadlineAfter(5, TimeUnit.SECONDS).status(NodeStatusRequest.getDefaultInstance()).getReadable()) {
                    catchingUp.add(n.getId());
                }
            }
            if (catchingUp.isEmpty()) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw Status.UNAVAILABLE.withDescription(catchingUp + " still catching up after 30 minutes").asRuntimeException();
            }
            tally.progress.accept(tally.sofar(0, map.epoch()).setStage("waiting for " + String.join(", ", catchingUp) + " to catch up").build());
            try {
                Thread.sleep(1000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw Status.CANCELLED.withDescription("interrupted").asRuntimeException();
            }
        }
    }

    /** A live replica that keeps every partition of the batch: its source, or another one. */
    private int sourceOf(PartitionMap map, Batch batch) {
        Set<String> live = liveIds.get();
        if (live.contains(map.nodes().get(batch.source()).getId()) && keepsAll(map, batch.source(), batch.moves())) {
            return batch.source();
        }
        for (int candidate = 0; candidate < map.nodes().size(); candidate++) {
            if (live.contains(map.nodes().get(candidate).getId()) && keepsAll(map, candidate, batch.moves())) {
                return candidate;
            }
        }
        throw Status.UNAVAILABLE.withDescription("no live replica keeps all of " + batch.moves().size() + " partitions of node "
                + map.nodes().get(batch.source()).getId()).asRuntimeException();
    }

    private long pull(PartitionMap map, int source, int target, List<Move> batch, java.util.function.LongConsumer progress) {
        PullRequest.Builder req = PullRequest.newBuilder().setSource(map.nodes().get(source).getAddress());
        batch.forEach(m -> req.addPartitions(m.partition()));
        Iterator<PullProgress> it = view.node(map.nodes().get(target).getAddress()).control()
                .withDeadlineAfter(2, TimeUnit.HOURS).pullPartitions(req.build());
        long records = 0;
        while (it.hasNext()) {
            PullProgress p = it.next();
            records = p.getRecords();
            progress.accept(records);
            if (p.getDone()) {
                return records;
            }
        }
        throw Status.INTERNAL.withDescription("pull to " + map.nodes().get(target).getId() + " ended without finishing").asRuntimeException();
    }

    /** Abandons {@code batches}' copies; returns the map installed ({@code copying} if that failed). */
    private PartitionMap abandon(PartitionMap copying, List<Batch> batches) {
        PartitionMap back = copying.withMovesAbandoned(moves(batches));
        try {
            cas(copying, back);
        } catch (RuntimeException e) {
            LOG.warning("could not abandon a failed move: " + e);
            return copying;
        }
        try {
            push(back);
        } catch (RuntimeException e) {
            // A target not told may still take writes routed by the older map after its drop:
            // the next move onto it drops what they leave (clearTargets).
            LOG.warning("abandoned a failed move, but not every node took its epoch: " + e);
        }
        batches.forEach(batch -> drop(back, batch.target(), batch.moves()));
        return back;
    }

    /** Drops each moved partition at the node whose replica it replaced. */
    private void dropReplaced(PartitionMap map, Batch batch) {
        Map<Integer, List<Move>> byFrom = new LinkedHashMap<>();
        batch.moves().forEach(m -> byFrom.computeIfAbsent(m.from(), k -> new ArrayList<>()).add(m));
        byFrom.forEach((from, moves) -> drop(map, from, moves));
    }

    private void drop(PartitionMap map, int node, List<Move> batch) {
        PartitionsRequest.Builder req = PartitionsRequest.newBuilder();
        batch.forEach(m -> req.addPartitions(m.partition()));
        PlacedNode n = map.nodes().get(node);
        if (!liveIds.get().contains(n.getId())) {
            LOG.warning(n.getId() + " is down: its copy of " + batch.size() + " moved partitions stays on disk");
            return;
        }
        try {
            view.node(n.getAddress()).control().withDeadlineAfter(10, TimeUnit.MINUTES).dropPartitions(req.build());
        } catch (StatusRuntimeException e) {
            LOG.warning("dropping moved partitions on " + n.getId() + " failed (" + e.getStatus() + "); the copy stays on disk");
        }
    }

    private void cas(PartitionMap expected, PartitionMap next) {
        if (!store.compareAndSet(expected, next)) {
            throw Status.ABORTED.withDescription("the partition map changed during the move (epoch " + expected.epoch()
                    + " is gone); run the command again").asRuntimeException();
        }
    }

    /**
     * Tells every live node the new epoch and waits for all of them: from then on no node accepts
     * a call routed by an older map, so a copy that starts now cannot miss a write.
     */
    private void push(PartitionMap map) {
        Set<String> live = liveIds.get();
        for (PlacedNode n : map.nodes()) {
            if (live.contains(n.getId())) {
                view.node(n.getAddress()).control().withDeadlineAfter(10, TimeUnit.SECONDS)
                        .setEpoch(SetEpochRequest.newBuilder().setEpoch(map.epoch()).build());
            }
        }
        view.refresh();
    }
}
