package io.simdex.router.cluster;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.simdex.proto.v1.NodeStatusRequest;
import io.simdex.proto.v1.PartitionsRequest;
import io.simdex.proto.v1.PlacedNode;
import io.simdex.proto.v1.PullProgress;
import io.simdex.proto.v1.PullRequest;
import io.simdex.proto.v1.SetEpochRequest;
import io.simdex.router.cluster.MovePlan.Batch;
import io.simdex.router.cluster.PartitionMap.Move;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;
import java.util.function.Supplier;
import java.util.logging.Logger;
import java.util.stream.Collectors;

import static io.simdex.router.cluster.MovePlan.keepsAll;
import static io.simdex.router.cluster.MovePlan.moves;

/**
 * What a move asks of the partition map and of the nodes: compare-and-set map changes, epochs
 * pushed to every live node, clears, pulls and drops, and the checks of a batch's source. One
 * per {@link Rebalancer}; its rounds ({@link MoveRound}) share it.
 */
final class MoveCalls {
    private static final Logger LOG = Logger.getLogger(Rebalancer.class.getName());

    private final PartitionMapStore store;
    private final ClusterView view;
    private final Supplier<Set<String>> liveIds;

    MoveCalls(PartitionMapStore store, ClusterView view, Supplier<Set<String>> liveIds) {
        this.store = store;
        this.view = view;
        this.liveIds = liveIds;
    }

    /** The nodes the failure detector reports up. */
    Set<String> live() {
        return liveIds.get();
    }

    /** How many times {@code nodeId}'s missed-writes mark was cleared ({@link ClusterView#clears}). */
    long clears(String nodeId) {
        return view.clears(nodeId);
    }

    /** Whether node {@code n} serves reads: false while it catches up. */
    boolean readable(PlacedNode n) {
        return view.node(n.getAddress()).control().withDeadlineAfter(5, TimeUnit.SECONDS).status(NodeStatusRequest.getDefaultInstance())
                .getReadable();
    }

    /**
     * Drops at every live node what it keeps of partitions it neither serves nor takes writes
     * for, before anything of the move is incoming: a copy left on a node by an earlier move (a
     * drop it missed while it was down, a move given back, a node drained while down and added
     * again) lacks the deletes and rebinds made since, a pull adds to what is there, so a node
     * receiving those partitions again would bring those records back, and every such record
     * counts in the collection's stats. Nothing writes those partitions there meanwhile: the
     * node is no replica of them, and the epoch keeps older maps' writes out. The nodes are
     * cleared at once, each in one pass over its maps. A receiving node that cannot be fails
     * the command before anything moves; another is logged, as it receives nothing. Returns the
     * receiving nodes that are down: their batches are left out of the move, even if they come
     * back during it.
     */
    Set<Integer> clearStale(PartitionMap map, List<Batch> batches, ExecutorService pool) {
        Set<Integer> targets = batches.stream().map(Batch::target).collect(Collectors.toSet());
        Set<String> live = liveIds.get();
        Map<Integer, Future<Long>> clears = new LinkedHashMap<>();
        for (int node = 0; node < map.nodes().size(); node++) {
            PlacedNode n = map.nodes().get(node);
            PartitionsRequest stale = notServed(map, node);
            if (live.contains(n.getId()) && stale.getPartitionsCount() > 0) {
                clears.put(node, pool.submit(() -> view.node(n.getAddress()).control().withDeadlineAfter(10, TimeUnit.MINUTES)
                        .dropPartitions(stale).getChanged()));
            }
        }
        for (Map.Entry<Integer, Future<Long>> clear : clears.entrySet()) {
            String id = map.nodes().get(clear.getKey()).getId();
            try {
                long dropped = awaitPull(clear.getValue());
                if (dropped > 0) {
                    LOG.info(() -> id + " dropped " + dropped + " records of partitions it does not serve, left by an earlier move");
                }
            } catch (StatusRuntimeException e) {
                if (targets.contains(clear.getKey())) {
                    throw Status.UNAVAILABLE.withDescription("could not drop what " + id + " keeps of partitions it does not serve, before it"
                            + " receives some (" + e.getStatus() + "); nothing moved").withCause(e).asRuntimeException();
                }
                LOG.warning("could not drop what " + id + " keeps of partitions it does not serve (" + e.getStatus() + "); it receives none");
            }
        }
        return targets.stream().filter(to -> !live.contains(map.nodes().get(to).getId())).collect(Collectors.toSet());
    }

    /** The partitions of which {@code node} is neither a replica nor incoming. */
    private static PartitionsRequest notServed(PartitionMap map, int node) {
        PartitionsRequest.Builder req = PartitionsRequest.newBuilder();
        for (int p = 0; p < io.simdex.core.Partitions.COUNT; p++) {
            if (!map.isReplica(p, node) && !map.isIncoming(p, node)) {
                req.addPartitions(p);
            }
        }
        return req.build();
    }

    /**
     * Fails when the source was marked behind since the round's epoch, even if it has caught up
     * and cleared the mark since: a router saw it fail a write its quorum took, so its copy may
     * lack that write (it was readable when the round began: the rebalancer waits for nodes to
     * catch up before each round). Switched in, the copy would keep lacking it unmarked; and when
     * the replica it replaces is the only other one that took the write (a drain at R=2, W=1),
     * the drop would lose it. Called once {@link Rebalancer#SETTLE} has passed since the epoch,
     * so that no mark for a write routed by the older map is still to come; read from the Raft
     * map, not a router's view of it, which may lag.
     */
    void requireNotBehind(PartitionMap map, int source, long clearsBefore) {
        String id = map.nodes().get(source).getId();
        if (view.markedBehind(id) || view.clears(id) != clearsBefore) {
            throw Status.UNAVAILABLE.withDescription(id + ", copied from, missed an acknowledged write during the copy: run the command"
                    + " again once it has caught up").asRuntimeException();
        }
    }

    /** A pull's records, or its failure as thrown; interrupted, it is cancelled. */
    static long awaitPull(Future<Long> pull) {
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

    /** A live replica that keeps every partition of the batch: its source, or another one. */
    int sourceOf(PartitionMap map, Batch batch) {
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

    /** Has {@code target} pull {@code batch}'s partitions from {@code source}; returns the records, telling {@code progress} as they come. */
    long pull(PartitionMap map, int source, int target, List<Move> batch, LongConsumer progress) {
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

    /**
     * Abandons {@code batches}' copies; returns the map installed ({@code copying} if that
     * failed). Runs with the thread's interrupt cleared (and then restored): an interrupted move
     * must still give back what it copied, or its targets stay incoming.
     */
    PartitionMap abandon(PartitionMap copying, List<Batch> batches) {
        boolean interrupted = Thread.interrupted();
        try {
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
                // the next move drops what they leave (clearStale).
                LOG.warning("abandoned a failed move, but not every node took its epoch: " + e);
            }
            batches.forEach(batch -> drop(back, batch.target(), batch.moves()));
            return back;
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Drops each moved partition at the node whose replica it replaced. */
    void dropReplaced(PartitionMap map, Batch batch) {
        Map<Integer, List<Move>> byFrom = new LinkedHashMap<>();
        batch.moves().forEach(m -> byFrom.computeIfAbsent(m.from(), k -> new ArrayList<>()).add(m));
        byFrom.forEach((from, moves) -> drop(map, from, moves));
    }

    /** Has {@code node} drop {@code batch}'s partitions; a node down, or a drop that fails, is logged (the next move clears it). */
    void drop(PartitionMap map, int node, List<Move> batch) {
        PartitionsRequest.Builder req = PartitionsRequest.newBuilder();
        batch.forEach(m -> req.addPartitions(m.partition()));
        PlacedNode n = map.nodes().get(node);
        if (!liveIds.get().contains(n.getId())) {
            LOG.warning(n.getId() + " is down: its copy of " + batch.size() + " moved partitions stays on disk until the next move");
            return;
        }
        try {
            view.node(n.getAddress()).control().withDeadlineAfter(10, TimeUnit.MINUTES).dropPartitions(req.build());
        } catch (StatusRuntimeException e) {
            LOG.warning("dropping moved partitions on " + n.getId() + " failed (" + e.getStatus() + "); the copy stays on disk until the next"
                    + " move");
        }
    }

    /** Installs {@code next} if the map is still {@code expected}; ABORTED otherwise, naming the epoch gone. */
    void cas(PartitionMap expected, PartitionMap next) {
        if (!store.compareAndSet(expected, next)) {
            throw Status.ABORTED.withDescription("the partition map changed during the move (epoch " + expected.epoch()
                    + " is gone); run the command again").asRuntimeException();
        }
    }

    /**
     * Tells every live node the new epoch and waits for all of them: from then on no node accepts
     * a call routed by an older map, so a copy that starts now cannot miss a write.
     */
    void push(PartitionMap map) {
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
