package io.simdex.router.cluster;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.simdex.proto.v1.MoveProgress;
import io.simdex.router.cluster.MovePlan.Batch;
import io.simdex.router.cluster.PartitionMap.Move;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import java.util.logging.Logger;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static io.simdex.router.cluster.MovePlan.moves;

/**
 * One round of a {@link Rebalancer} move: its batches pulled to their targets at once
 * ({@link #start}, {@link #awaitPulls}), then, once the round has settled, each batch's source
 * checked and the round switched ({@link #finish}): the batches that succeeded replace their
 * sources (they hold complete copies), the failed ones are abandoned.
 */
final class MoveRound {
    private static final Logger LOG = Logger.getLogger(Rebalancer.class.getName());

    private final MoveCalls calls;
    /** How long after its epoch the round waits before its sources are checked ({@link Rebalancer#SETTLE}, or none). */
    private final Duration settle;
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

    MoveRound(MoveCalls calls, Duration settle, PartitionMap map, List<Batch> batches, Tally tally) {
        this.calls = calls;
        this.settle = settle;
        this.before = map;
        this.batches = batches;
        this.tally = tally;
        sources = batches.stream().mapToInt(b -> calls.sourceOf(map, b)).toArray();
        clears = Arrays.stream(sources).mapToLong(source -> calls.clears(map.nodes().get(source).getId())).toArray();
        records = new long[batches.size()];
        failures = new RuntimeException[batches.size()];
        abandoned = new boolean[batches.size()];
    }

    List<Batch> batches() {
        return batches;
    }

    /** Makes the targets incoming and starts their pulls; returns the map installed. */
    PartitionMap start(ExecutorService pulls) {
        copying = before.withIncoming(moves(batches));
        calls.cas(before, copying);
        calls.push(copying);
        settledAt = System.nanoTime() + settle.toNanos();
        String stage = "copying " + moves(batches).size() + " partitions " + describe(copying, Arrays.stream(sources), batches);
        AtomicLongArray sofar = new AtomicLongArray(batches.size());
        for (int b = 0; b < batches.size(); b++) {
            int batch = b;
            Batch planned = batches.get(b);
            running.add(pulls.submit(() -> calls.pull(copying, sources[batch], planned.target(), planned.moves(), n -> {
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
     * {@code others} does the same for the rounds copied before, which wait to be switched.
     */
    PartitionMap awaitPulls(PartitionMap current, UnaryOperator<PartitionMap> others) {
        PartitionMap now = current;
        while (true) {
            now = others.apply(abandonTargetsDown(now));
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
                records[b] = MoveCalls.awaitPull(running.get(b));
            } catch (RuntimeException e) {
                failures[b] = e;
            }
        }
        tally.unswitched += Arrays.stream(records).sum();
        return now;
    }

    /**
     * Abandons the batches not failed yet whose target is reported down, cancelling their pulls
     * if they run; returns the map installed. A failed batch is abandoned when the round
     * finishes: its target is up, and its copy may still be switched by a retried command.
     */
    PartitionMap abandonTargetsDown(PartitionMap now) {
        Set<String> live = calls.live();
        List<Batch> down = new ArrayList<>();
        for (int b = 0; b < batches.size(); b++) {
            String target = copying.nodes().get(batches.get(b).target()).getId();
            if (failures[b] == null && !live.contains(target)) {
                abandoned[b] = true;
                failures[b] = targetDown(target);
                running.get(b).cancel(true);
                down.add(batches.get(b));
            }
        }
        return down.isEmpty() ? now : calls.abandon(now, down);
    }

    /**
     * Waits until {@link Rebalancer#SETTLE} has passed since the round's epoch, telling the
     * caller why; returns the map installed. Looks every second for targets gone down, in this
     * round ({@link #abandonTargetsDown}) and in {@code others}. Interrupted, it fails every batch.
     */
    private PartitionMap awaitSettled(PartitionMap current, UnaryOperator<PartitionMap> others) {
        PartitionMap now = current;
        long left = settledAt - System.nanoTime();
        if (left <= 0) {
            return now;
        }
        tally.progress.accept(tally.sofar(0, current.epoch()).setStage("copied; waiting " + TimeUnit.NANOSECONDS.toSeconds(left + 999_999_999)
                + " s for writes routed by an older map to settle").build());
        try {
            // A deadline, not a condition: no event says that a late mark will not come.
            while ((left = settledAt - System.nanoTime()) > 0 && Arrays.stream(failures).anyMatch(f -> f == null)) {
                TimeUnit.NANOSECONDS.sleep(Math.min(left, TimeUnit.SECONDS.toNanos(1)));
                now = others.apply(abandonTargetsDown(now));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // every batch fails, and is abandoned (MoveCalls.abandon clears the interrupt)
            Arrays.fill(failures, Status.CANCELLED.withDescription("interrupted").asRuntimeException());
        }
        return now;
    }

    private static StatusRuntimeException targetDown(String target) {
        return Status.UNAVAILABLE.withDescription(target + ", copied to, went down before its copy was switched in: run the command again"
                + " once it is back").asRuntimeException();
    }

    /** Whether {@link Rebalancer#SETTLE} has passed since the round's epoch. */
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
     * or throws {@link Failed} with the first failure once that is done. While it waits, a
     * target gone down has its batches abandoned at once, here and in {@code others}.
     */
    PartitionMap finish(PartitionMap current, UnaryOperator<PartitionMap> others) {
        current = abandonTargetsDown(current);
        if (Arrays.stream(failures).anyMatch(f -> f == null)) {
            current = awaitSettled(current, others);
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
                calls.requireNotBehind(copying, sources[b], clears[b]);
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
                calls.cas(current, switched);
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
                    calls.push(switched);
                    succeeded.forEach(batch -> calls.dropReplaced(switched, batch));
                } catch (RuntimeException e) {
                    // Switched, but a node may not know it yet, and a router still routing
                    // by the older map may read a replaced copy there: those stay on disk,
                    // for the next move to drop (MoveCalls.clearStale).
                    if (failure == null) {
                        failure = e;
                    } else {
                        failure.addSuppressed(e);
                    }
                }
            }
        }
        if (failure != null) {
            throw new Failed(failure, failed.isEmpty() ? now : calls.abandon(now, failed));
        }
        return now;
    }

    /** "from a, b to c": nodes {@code from}, and the targets of {@code round}. */
    private static String describe(PartitionMap map, IntStream from, List<Batch> round) {
        String sources = from.distinct().mapToObj(n -> map.nodes().get(n).getId()).collect(Collectors.joining(", "));
        String to = round.stream().map(b -> map.nodes().get(b.target()).getId()).distinct().collect(Collectors.joining(", "));
        return "from " + sources + " to " + to;
    }

    /**
     * A move's partitions switched and records copied so far, and where its progress goes.
     * Written by the thread that runs the move, read by the pulls' threads too.
     */
    static final class Tally {
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
    static final class Failed extends RuntimeException {
        final transient RuntimeException cause;
        final transient PartitionMap map;

        Failed(RuntimeException cause, PartitionMap map) {
            super(cause.getMessage(), cause, false, false);
            this.cause = cause;
            this.map = map;
        }
    }
}
