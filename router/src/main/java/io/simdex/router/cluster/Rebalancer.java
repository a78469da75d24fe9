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
import io.simdex.proto.v1.ShardControlGrpc;
import io.simdex.router.cluster.PartitionMap.Move;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.logging.Logger;

/**
 * Moves partition replicas between nodes while the cluster serves. For each batch of moves
 * (same source and target):
 * <ol>
 * <li>epoch e+1: the target is "incoming" for the batch, so every write now reaches it too;
 *     every live node is told the epoch, which fences out writes routed by an older map;</li>
 * <li>the target pulls the partitions from a live serving replica; writes made meanwhile reach
 *     it directly, deletes are kept by its tombstones;</li>
 * <li>epoch e+2: the target replaces the source; nodes are told;</li>
 * <li>the source drops its copy.</li>
 * </ol>
 * Reads keep going to the old replicas until step 3. Every map change is a compare-and-set on
 * the epoch: if anyone else changed the map meanwhile, the move stops instead of overwriting.
 */
public final class Rebalancer {
    private static final Logger LOG = Logger.getLogger(Rebalancer.class.getName());
    /** Partitions per batch: a pull scans the source's maps once per batch. */
    static final int BATCH = 512;

    private final PartitionMapStore store;
    private final ClusterView view;
    private final Supplier<Set<String>> liveIds;

    public Rebalancer(PartitionMapStore store, ClusterView view, Supplier<Set<String>> liveIds) {
        this.store = store;
        this.view = view;
        this.liveIds = liveIds;
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

    private void balance(Consumer<MoveProgress> progress) {
        PartitionMap map = abandonLeftovers(store.current());
        List<List<Move>> batches = batches(map, map.balancingMoves());
        int total = batches.stream().mapToInt(List::size).sum();
        int done = 0;
        long records = 0;
        progress.accept(MoveProgress.newBuilder().setPartitionsTotal(total).setEpoch(map.epoch())
                .setStage(total == 0 ? "balanced: nothing to move" : "moving " + total + " partition replicas in " + batches.size() + " batches").build());
        for (List<Move> batch : batches) {
            awaitCaughtUp(map, progress);
            Move first = batch.get(0);
            String from = map.nodes().get(first.from()).getId();
            String to = map.nodes().get(first.to()).getId();
            int source = sourceOf(map, batch);
            PartitionMap copying = map.withIncoming(batch);
            cas(map, copying);
            push(copying);
            String stage = "copying " + batch.size() + " partitions from " + map.nodes().get(source).getId() + " to " + to;
            int doneBefore = done;
            long recordsBefore = records;
            long copied;
            try {
                copied = pull(copying, source, first.to(), batch, n -> progress.accept(MoveProgress.newBuilder()
                        .setPartitionsTotal(total).setPartitionsDone(doneBefore).setRecords(recordsBefore + n)
                        .setEpoch(copying.epoch()).setStage(stage).build()));
            } catch (RuntimeException e) {
                abandon(copying, batch);
                throw e;
            }
            PartitionMap switched = copying.withMovesDone(batch);
            cas(copying, switched);
            push(switched);
            drop(switched, first.from(), batch);
            done += batch.size();
            records += copied;
            map = switched;
            LOG.info(() -> "moved " + batch.size() + " partitions " + from + " -> " + to + ", " + copied + " records; now " + switched);
            progress.accept(MoveProgress.newBuilder().setPartitionsTotal(total).setPartitionsDone(done).setRecords(records)
                    .setEpoch(switched.epoch()).setStage("moved " + batch.size() + " partitions from " + from + " to " + to).build());
        }
        progress.accept(MoveProgress.newBuilder().setPartitionsTotal(total).setPartitionsDone(done).setRecords(records)
                .setEpoch(map.epoch()).setDone(true).setStage("done").build());
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
    private void awaitCaughtUp(PartitionMap map, Consumer<MoveProgress> progress) {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(30);
        while (true) {
            List<String> catchingUp = new ArrayList<>();
            Set<String> live = liveIds.get();
            for (PlacedNode n : map.nodes()) {
                if (live.contains(n.getId()) && !ShardControlGrpc.newBlockingStub(view.node(n.getAddress()).channel())
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
            progress.accept(MoveProgress.newBuilder().setEpoch(map.epoch()).setStage("waiting for " + String.join(", ", catchingUp)
                    + " to catch up").build());
            try {
                Thread.sleep(1000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw Status.CANCELLED.withDescription("interrupted").asRuntimeException();
            }
        }
    }

    /** Moves grouped by (source, target), at most {@link #BATCH} partitions each. */
    private static List<List<Move>> batches(PartitionMap map, List<Move> moves) {
        Map<Long, List<Move>> byPair = new LinkedHashMap<>();
        for (Move m : moves) {
            byPair.computeIfAbsent(((long) m.from() << 32) | m.to(), k -> new ArrayList<>()).add(m);
        }
        List<List<Move>> out = new ArrayList<>();
        for (List<Move> pair : byPair.values()) {
            for (int i = 0; i < pair.size(); i += BATCH) {
                out.add(pair.subList(i, Math.min(pair.size(), i + BATCH)));
            }
        }
        return out;
    }

    /** A live replica that keeps every partition of the batch: the source, or another one. */
    private int sourceOf(PartitionMap map, List<Move> batch) {
        Set<String> live = liveIds.get();
        int from = batch.get(0).from();
        if (live.contains(map.nodes().get(from).getId())) {
            return from;
        }
        for (int candidate = 0; candidate < map.nodes().size(); candidate++) {
            int c = candidate;
            if (live.contains(map.nodes().get(c).getId())
                    && batch.stream().allMatch(m -> java.util.Arrays.stream(map.replicas(m.partition())).anyMatch(r -> r == c))) {
                return c;
            }
        }
        throw Status.UNAVAILABLE.withDescription("no live replica keeps all of " + batch.size() + " partitions of node "
                + map.nodes().get(from).getId()).asRuntimeException();
    }

    private long pull(PartitionMap map, int source, int target, List<Move> batch, java.util.function.LongConsumer progress) {
        PullRequest.Builder req = PullRequest.newBuilder().setSource(map.nodes().get(source).getAddress());
        batch.forEach(m -> req.addPartitions(m.partition()));
        Iterator<PullProgress> it = ShardControlGrpc.newBlockingStub(view.node(map.nodes().get(target).getAddress()).channel())
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

    private void abandon(PartitionMap copying, List<Move> batch) {
        try {
            PartitionMap back = copying.withMovesAbandoned(batch);
            cas(copying, back);
            push(back);
            drop(back, batch.get(0).to(), batch);
        } catch (RuntimeException e) {
            LOG.warning("could not abandon a failed move cleanly: " + e);
        }
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
            ShardControlGrpc.newBlockingStub(view.node(n.getAddress()).channel()).withDeadlineAfter(10, TimeUnit.MINUTES).dropPartitions(req.build());
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
                ShardControlGrpc.newBlockingStub(view.node(n.getAddress()).channel()).withDeadlineAfter(10, TimeUnit.SECONDS)
                        .setEpoch(SetEpochRequest.newBuilder().setEpoch(map.epoch()).build());
            }
        }
        view.refresh();
    }
}
