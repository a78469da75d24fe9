package io.simdex.router.cluster;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.simdex.proto.v1.MoveProgress;
import io.simdex.proto.v1.PlacedNode;
import io.simdex.router.cluster.MovePlan.Batch;
import io.simdex.router.cluster.PartitionMap.Move;
import io.simdex.router.transport.HandlerThreads;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import java.util.logging.Logger;
import java.util.stream.Collectors;

import static io.simdex.router.cluster.MovePlan.ROUND;
import static io.simdex.router.cluster.MovePlan.batches;
import static io.simdex.router.cluster.MovePlan.moves;
import static io.simdex.router.cluster.MovePlan.rounds;

/**
 * Moves partition replicas between nodes while the cluster serves. Moves go in batches (same
 * source and target), and batches in rounds of up to {@link MovePlan#ROUND} batches from different
 * sources, copied at once: a node joining N others takes a batch from each of up to
 * {@link MovePlan#ROUND} of them at a time rather than one stream's worth. A drain copies from the other
 * replicas of the drained node's partitions, several nodes at once, when that takes no more rounds
 * than copying from the drained node, and whenever the drained node is down ({@link MovePlan#batches}),
 * so a node lost for good can be drained. First every live node drops what it keeps of partitions
 * it does not serve ({@link MoveCalls#clearStale}). Then, for each round ({@link MoveRound}):
 * <ol>
 * <li>epoch e+1: each target is "incoming" for its batch, so every write now reaches it too;
 *     every live node is told the epoch, which fences out writes routed by an older map;</li>
 * <li>each target pulls its partitions from a live serving replica; writes made meanwhile reach
 *     it directly, deletes are kept by its tombstones; a source marked behind since the epoch
 *     (it missed a write routed by the older map) has its batch abandoned, which can be known
 *     only {@link #SETTLE} after the epoch ({@link MoveCalls#requireNotBehind});</li>
 * <li>a later epoch: each target replaces its source; nodes are told;</li>
 * <li>the sources drop their copies.</li>
 * </ol>
 * Reads keep going to the old replicas until step 3, which runs while the rounds after it copy,
 * so that the rounds' waits for {@link #SETTLE} overlap the copies. A batch whose pull fails is
 * abandoned once the others of its round have ended, which finish as above; one whose target
 * goes down is abandoned at once, while its round copies or waits or a later round copies. A
 * move that fails otherwise (an epoch not taken, a node that does not catch up, an interrupt)
 * abandons every copy it has not switched in. Every map change is a compare-and-set on the epoch: if anyone else changed the
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
    private final MoveCalls calls;
    private final Duration settle;

    public Rebalancer(PartitionMapStore store, ClusterView view, Supplier<Set<String>> liveIds) {
        this(store, view, liveIds, SETTLE);
    }

    /** With rounds waiting {@code settle} after their epoch before their sources are checked (tests shorten it). */
    Rebalancer(PartitionMapStore store, ClusterView view, Supplier<Set<String>> liveIds, Duration settle) {
        this.store = store;
        this.calls = new MoveCalls(store, view, liveIds);
        this.settle = settle;
    }

    /** Places a joined node and moves partitions to it until the shares are even. */
    public synchronized void addNode(PlacedNode node, Consumer<MoveProgress> progress) {
        PartitionMap map = store.update(m -> m.withNode(node.toBuilder().setDraining(false).build()));
        calls.push(map);
        balance(progress);
    }

    /** Moves every replica off a node. */
    public synchronized void drain(String nodeId, Consumer<MoveProgress> progress) {
        PartitionMap map = store.update(m -> m.withDraining(nodeId, true));
        calls.push(map);
        balance(progress);
    }

    /** Forgets a drained node. */
    public synchronized PartitionMap remove(String nodeId) {
        PartitionMap map = store.update(m -> m.withoutNode(nodeId));
        calls.push(map);
        return map;
    }

    private void balance(Consumer<MoveProgress> caller) {
        // The pulls of a round report from their own threads; the caller's stream takes one at a time.
        Consumer<MoveProgress> progress = p -> {
            synchronized (caller) {
                caller.accept(p);
            }
        };
        PartitionMap map = abandonLeftovers(store.current());
        List<Batch> planned = batches(map, map.balancingMoves(), calls.live());
        ExecutorService pulls = HandlerThreads.pool(ROUND, "rebalance-pull");
        RuntimeException failure = null;
        MoveRound.Tally tally;
        // Rounds copy one after another; each is switched once SETTLE has passed since its
        // epoch (settleOf), while the rounds after it copy: the waits overlap the copies.
        // Rounds whose pull failed, or whose partitions the next round moves again, are
        // finished before it starts.
        Deque<MoveRound> copied = new ArrayDeque<>();
        // While one round copies or waits, a target gone down in any round copied before has
        // its batches abandoned at once: an incoming replica must take every write of its
        // partitions, so a dead one would fail them until its own round was finished.
        UnaryOperator<PartitionMap> watchCopied = m -> {
            for (MoveRound r : copied) {
                m = r.abandonTargetsDown(m);
            }
            return m;
        };
        MoveRound starting = null;
        try {
            Set<Integer> down = calls.clearStale(map, planned, pulls);
            List<Batch> batches = planned.stream().filter(b -> !down.contains(b.target())).toList();
            if (!down.isEmpty()) {
                failure = targetsDown(map, down, moves(planned).size() - moves(batches).size());
            }
            List<List<Batch>> rounds = rounds(batches);
            tally = new MoveRound.Tally(moves(batches).size(), progress);
            progress.accept(MoveProgress.newBuilder().setPartitionsTotal(tally.total).setEpoch(map.epoch())
                    .setStage(tally.total > 0 ? "moving " + tally.total + " partition replicas in " + batches.size() + " batches, " + rounds.size()
                            + " rounds" : failure == null ? "balanced: nothing to move" : "nothing can move now").build());
            for (List<Batch> round : rounds) {
                boolean finishAll = copied.stream().anyMatch(r -> r.pullFailed() || r.touches(round));
                try {
                    while (!copied.isEmpty() && (finishAll || copied.peek().settled())) {
                        map = finishOldest(copied, map, watchCopied);
                    }
                } catch (MoveRound.Failed f) {
                    map = f.map;
                    failure = also(failure, f.cause);
                    break;
                }
                awaitCaughtUp(map, tally);
                starting = new MoveRound(calls, settleOf(map), map, round, tally);
                map = starting.start(pulls);
                map = starting.awaitPulls(map, watchCopied);
                copied.add(starting);
                starting = null;
            }
            while (!copied.isEmpty()) {
                try {
                    map = finishOldest(copied, map, watchCopied);
                } catch (MoveRound.Failed f) {
                    map = f.map;
                    failure = also(failure, f.cause);
                }
            }
        } catch (RuntimeException e) {
            // No batch's own failure (those are Failed, caught above): a clear, a push or a map
            // change refused, a node that does not catch up, an interrupt.
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

    /** The failure of a move whose targets {@code down} were down when it began: their {@code left} moves stay undone. */
    private static StatusRuntimeException targetsDown(PartitionMap map, Set<Integer> down, int left) {
        String ids = down.stream().map(to -> map.nodes().get(to).getId()).collect(Collectors.joining(", "));
        return Status.UNAVAILABLE.withDescription(ids + ", to receive partitions, down: " + left + " partition replicas stay where they are;"
                + " run the command again once back").asRuntimeException();
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
     * Finishes the oldest copied round. It leaves {@code copied} once finished or failed
     * ({@link MoveRound.Failed}: it abandoned what it did not switch); anything else leaves it
     * there, for {@link #abandonUnswitched}.
     */
    private static PartitionMap finishOldest(Deque<MoveRound> copied, PartitionMap map, UnaryOperator<PartitionMap> watchCopied) {
        try {
            PartitionMap next = copied.peek().finish(map, watchCopied);
            copied.poll();
            return next;
        } catch (MoveRound.Failed f) {
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
    private void abandonUnswitched(Collection<MoveRound> rounds, RuntimeException cause) {
        if (rounds.isEmpty() || Status.fromThrowable(cause).getCode() == Status.Code.ABORTED) {
            return;
        }
        boolean interrupted = Thread.interrupted();
        try {
            PartitionMap current = store.current();
            List<Batch> left = new ArrayList<>();
            for (MoveRound round : rounds) {
                for (Batch b : round.batches()) {
                    List<Move> still = b.moves().stream().filter(m -> current.isIncoming(m.partition(), b.target())).toList();
                    if (!still.isEmpty()) {
                        left.add(new Batch(b.source(), b.target(), still));
                    }
                }
            }
            if (!left.isEmpty()) {
                int partitions = moves(left).size();
                LOG.warning(() -> "abandoning " + partitions + " copied partitions not switched in, after: " + cause);
                calls.abandon(current, left);
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
     * How long a round of {@code map} waits for late marks: none when W = R, since a write is
     * then acknowledged only when every serving replica took it, and no acknowledged write can
     * leave a source behind.
     */
    private Duration settleOf(PartitionMap map) {
        return map.writeQuorum() >= map.replication() ? Duration.ZERO : settle;
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
        calls.cas(map, back);
        calls.push(back);
        Map<Integer, List<Move>> byTarget = new LinkedHashMap<>();
        leftovers.forEach(m -> byTarget.computeIfAbsent(m.to(), k -> new ArrayList<>()).add(m));
        byTarget.forEach((to, moves) -> calls.drop(back, to, moves));
        LOG.info(() -> "abandoned " + leftovers.size() + " unfinished moves of an earlier rebalance");
        return back;
    }

    /**
     * Waits until no live node is catching up: a node still pulling its partitions from peers
     * (after a restart) would pull back a partition that a move has just dropped from it.
     */
    private void awaitCaughtUp(PartitionMap map, MoveRound.Tally tally) {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(30);
        while (true) {
            List<String> catchingUp = new ArrayList<>();
            Set<String> live = calls.live();
            for (PlacedNode n : map.nodes()) {
                if (live.contains(n.getId()) && !calls.readable(n)) {
                    catchingUp.add(n.getId());
                }
            }
            if (catchingUp.isEmpty()) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw Status.UNAVAILABLE.withDescription(catchingUp + " still catching up after 30 minutes").asRuntimeException();
            }
            tally.progress.accept(tally.sofar(0, map.epoch()).setStage("waiting for " + String.join(", ", catchingUp) + " to catch up")
                    .build());
            try {
                Thread.sleep(1000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw Status.CANCELLED.withDescription("interrupted").asRuntimeException();
            }
        }
    }
}
