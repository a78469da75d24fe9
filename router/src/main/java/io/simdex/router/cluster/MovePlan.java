package io.simdex.router.cluster;

import io.simdex.proto.v1.PlacedNode;
import io.simdex.router.cluster.PartitionMap.Move;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.ToIntFunction;

/**
 * How a move's partition replicas go: in batches of one source and one target, and batches in
 * rounds of different sources copied at once ({@link Rebalancer} runs them). Deterministic:
 * the same map, moves and live nodes give the same plan.
 */
final class MovePlan {
    /** Partitions per batch: a pull scans the source's maps once per batch. */
    static final int BATCH = 512;
    /**
     * Batches copied at once, each from another source: a source's export scans its maps once
     * per batch, so two batches of one source would scan them twice at the same time.
     */
    static final int ROUND = 4;

    private MovePlan() {
    }

    /**
     * Moves of one target copied from one source, at most {@link #BATCH} partitions: the source
     * keeps all of them, and each move's {@code from} is the replica its target replaces.
     */
    record Batch(int source, int target, List<Move> moves) {
    }

    /**
     * Moves grouped by (source, target), at most {@link #BATCH} partitions each. A move copies
     * from the replica it replaces, unless that node is draining and the plan is spread
     * ({@link #spread}): then from another replica of its partition. The spread plan is taken
     * when a draining node is down (nothing can be copied from it, and no other node keeps all
     * of a batch of its partitions), else when it takes no more rounds: each batch scans its
     * source's maps whole ({@code PartitionExport}), so a round costs about one scan however
     * small its batches, and spreading a drain over the other replicas cuts it into up to one
     * batch per (source, target) pair. In placements grown by joins from 3 nodes, draining one of
     * 4 at R=2 takes 2 rounds spread against 6 direct; one of 10 at R=3, 11 against 9.
     */
    static List<Batch> batches(PartitionMap map, List<Move> moves, Set<String> live) {
        List<Batch> direct = group(moves, Move::from);
        List<Batch> spread = spread(map, moves, live);
        boolean drainedDown = moves.stream().anyMatch(m -> map.nodes().get(m.from()).getDraining()
                && !live.contains(map.nodes().get(m.from()).getId()));
        return drainedDown || rounds(spread).size() <= rounds(direct).size() ? spread : direct;
    }

    /**
     * The moves off draining nodes copied from the live replica of their partition, not
     * draining, that has the fewest copies to serve so far (the draining node itself if there is
     * none, as at R=1); the others from the replica they replace.
     */
    private static List<Batch> spread(PartitionMap map, List<Move> moves, Set<String> live) {
        int[] serving = new int[map.nodes().size()];
        return group(moves, m -> {
            int source = m.from();
            if (map.nodes().get(m.from()).getDraining()) {
                for (int r : map.replicas(m.partition())) {
                    PlacedNode n = map.nodes().get(r);
                    if (r != m.from() && !n.getDraining() && live.contains(n.getId())
                            && (source == m.from() || serving[r] < serving[source])) {
                        source = r;
                    }
                }
            }
            serving[source]++;
            return source;
        });
    }

    /** Moves grouped by (the source {@code sourceOf} picks, target), in order, at most {@link #BATCH} partitions each. */
    private static List<Batch> group(List<Move> moves, ToIntFunction<Move> sourceOf) {
        Map<Long, List<Move>> byPair = new LinkedHashMap<>();
        for (Move m : moves) {
            byPair.computeIfAbsent(((long) sourceOf.applyAsInt(m) << 32) | m.to(), k -> new ArrayList<>()).add(m);
        }
        List<Batch> out = new ArrayList<>();
        byPair.forEach((pair, pairMoves) -> {
            for (int i = 0; i < pairMoves.size(); i += BATCH) {
                out.add(new Batch((int) (pair >>> 32), pair.intValue(), pairMoves.subList(i, Math.min(pairMoves.size(), i + BATCH))));
            }
        });
        return out;
    }

    /**
     * Batches in rounds: each round takes, in order, the next batches whose sources it has not
     * got yet, up to {@link #ROUND}.
     */
    static List<List<Batch>> rounds(List<Batch> batches) {
        List<List<Batch>> rounds = new ArrayList<>();
        List<Batch> left = new ArrayList<>(batches);
        while (!left.isEmpty()) {
            List<Batch> round = new ArrayList<>();
            Set<Integer> sources = new HashSet<>();
            for (Iterator<Batch> it = left.iterator(); it.hasNext() && round.size() < ROUND; ) {
                Batch batch = it.next();
                if (sources.add(batch.source())) {
                    round.add(batch);
                    it.remove();
                }
            }
            rounds.add(round);
        }
        return rounds;
    }

    /** The moves of {@code batches}, in order. */
    static List<Move> moves(List<Batch> batches) {
        return batches.stream().flatMap(b -> b.moves().stream()).toList();
    }

    /** Whether {@code node} is a replica of every partition of {@code moves}. */
    static boolean keepsAll(PartitionMap map, int node, List<Move> moves) {
        return moves.stream().allMatch(m -> map.isReplica(m.partition(), node));
    }
}
