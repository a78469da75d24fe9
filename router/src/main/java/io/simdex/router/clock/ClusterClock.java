package io.simdex.router.clock;

import com.google.common.util.concurrent.FutureCallback;
import com.google.common.util.concurrent.Futures;
import com.google.common.util.concurrent.MoreExecutors;
import io.grpc.Channel;
import io.grpc.Status;
import io.simdex.proto.v1.NodeStatus;
import io.simdex.proto.v1.NodeStatusRequest;
import io.simdex.proto.v1.ShardControlGrpc;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A router's cluster time: the agreed clock of its nodes, read every {@value #PERIOD_MILLIS} ms
 * (ShardControl.Status carries each node's clock) and run on between readings by this process's
 * monotonic clock. The router's own wall clock is only compared with it, and a difference beyond
 * the bound is logged, so a router whose host clock is minutes off writes into the same
 * generations, and expires the same ones, as every other router.
 *
 * <p>A round of readings replaces the time when a majority of the nodes answered and a majority
 * of those agree ({@link ClockAgreement}); a round that fewer nodes answered leaves the last
 * agreed time running (a minority of nodes cannot move it), except before the first agreement.
 * When the nodes that answered disagree, {@link #instant} throws FAILED_PRECONDITION naming each
 * node's offset until they agree again; before any node has answered, UNAVAILABLE. Requests that
 * need no time (collections without retention) never read this clock.
 */
public final class ClusterClock extends Clock implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(ClusterClock.class.getName());
    static final long PERIOD_MILLIS = 5_000;
    /** A node that has not answered within this long counts as not answering this round. */
    static final long CALL_MILLIS = 2_000;

    private final Supplier<Map<String, Channel>> nodes;
    private final Clock local;
    private final long maxSkewMillis;
    private final ScheduledExecutorService timer;
    private volatile Fix fix = new Fix(0, 0, Status.UNAVAILABLE.withDescription("no node has told this router the time yet"), false);
    private volatile long localOffsetMillis;
    private boolean localSkewed;
    private String outliers = "";

    /**
     * The agreed time {@code millis} at monotonic {@code atNanos}, or the refusal to answer instead;
     * {@code settled} once a round has agreed or found disagreement (from then on only a round a
     * majority of the nodes answered changes it).
     */
    private record Fix(long millis, long atNanos, Status refusal, boolean settled) {
    }

    private ClusterClock(Supplier<Map<String, Channel>> nodes, Clock local, long maxSkewMillis, ScheduledExecutorService timer) {
        this.nodes = nodes;
        this.local = local;
        this.maxSkewMillis = maxSkewMillis;
        this.timer = timer;
    }

    /**
     * A clock over the nodes that {@code nodes} gives (id to shard channel, read each round), with
     * one round of readings taken before it returns and the next ones in the background.
     *
     * @param local         this process's own clock: compared with the nodes' only, to warn
     * @param maxSkewMillis how far from the nodes' median a node's clock may be and still count
     */
    public static ClusterClock start(Supplier<Map<String, Channel>> nodes, Clock local, long maxSkewMillis) {
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "cluster-clock");
            t.setDaemon(true);
            return t;
        });
        ClusterClock clock = new ClusterClock(nodes, local, maxSkewMillis, timer);
        clock.sync();
        timer.scheduleWithFixedDelay(() -> {
            try {
                clock.sync();
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "reading the nodes' clocks failed", e);
            }
        }, PERIOD_MILLIS, PERIOD_MILLIS, TimeUnit.MILLISECONDS);
        return clock;
    }

    @Override
    public Instant instant() {
        Fix f = fix;
        if (f.refusal() != null) {
            throw f.refusal().asRuntimeException();
        }
        return Instant.ofEpochMilli(f.millis() + (System.nanoTime() - f.atNanos()) / 1_000_000);
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException("cluster time is UTC only");
    }

    /** This process's clock minus the cluster's at the last agreement, milliseconds (positive: ahead). */
    public long localOffsetMillis() {
        return localOffsetMillis;
    }

    /** Reads every node's clock once (each call bounded by {@value #CALL_MILLIS} ms) and updates the time. */
    synchronized void sync() {
        Map<String, Channel> targets = nodes.get();
        List<CompletableFuture<Raw>> calls = new ArrayList<>(targets.size());
        targets.forEach((id, channel) -> calls.add(read(id, channel)));
        List<Raw> answered = new ArrayList<>();
        List<String> failed = new ArrayList<>();
        for (CompletableFuture<Raw> call : calls) {
            Raw r = call.join();
            if (r.failure() == null) {
                answered.add(r);
            } else {
                failed.add(r.node() + ": " + r.failure());
            }
        }
        long at = System.nanoTime();
        List<ClockAgreement.Reading> readings = answered.stream().map(r -> r.at(at)).toList();
        update(readings, targets.size(), failed, at);
    }

    /** One node's answer: its clock and when the call was sent and answered (monotonic), or why it failed. */
    private record Raw(String node, long nodeMillis, long sentNanos, long answeredNanos, String failure) {
        ClockAgreement.Reading at(long nanos) {
            long midpoint = sentNanos + (answeredNanos - sentNanos) / 2;
            return new ClockAgreement.Reading(node, nodeMillis + (nanos - midpoint) / 1_000_000, (answeredNanos - sentNanos) / 2_000_000 + 1);
        }
    }

    private static CompletableFuture<Raw> read(String node, Channel channel) {
        CompletableFuture<Raw> out = new CompletableFuture<>();
        long sent = System.nanoTime();
        Futures.addCallback(ShardControlGrpc.newFutureStub(channel).withDeadlineAfter(CALL_MILLIS, TimeUnit.MILLISECONDS)
                .status(NodeStatusRequest.getDefaultInstance()), new FutureCallback<>() {
            @Override
            public void onSuccess(NodeStatus s) {
                long answered = System.nanoTime();
                out.complete(s.getUnixMillis() == 0 ? new Raw(node, 0, sent, answered, "its Status carries no clock (an older version)")
                        : new Raw(node, s.getUnixMillis(), sent, answered, null));
            }

            @Override
            public void onFailure(Throwable t) {
                out.complete(new Raw(node, 0, sent, System.nanoTime(), Status.fromThrowable(t).toString()));
            }
        }, MoreExecutors.directExecutor());
        return out;
    }

    /** Takes a round of {@code readings} (projected to monotonic {@code at}) out of {@code asked} nodes. */
    synchronized void update(List<ClockAgreement.Reading> readings, int asked, List<String> failed, long at) {
        Fix before = fix;
        if (readings.isEmpty() || (before.settled() && 2 * readings.size() <= asked)) {
            if (!before.settled()) {
                fix = new Fix(0, 0, Status.UNAVAILABLE.withDescription("no node has told this router the time yet"
                        + (failed.isEmpty() ? " (no nodes)" : ": " + String.join("; ", failed))), false);
            }
            return; // too few answers to move the time: the last agreed one runs on
        }
        ClockAgreement.Outcome o = ClockAgreement.of(readings, maxSkewMillis);
        if (!o.agreed()) {
            String why = "the nodes' clocks disagree by more than clock.skew.millis=" + maxSkewMillis + " (offsets from their median: "
                    + o.describe() + "); requests that need the time (collections with retention, CheckUrls) are refused until"
                    + " a majority agree: fix the nodes' time synchronisation (NTP)";
            if (before.refusal() == null || before.settled()) {
                LOG.severe(why);
            }
            fix = new Fix(0, 0, Status.FAILED_PRECONDITION.withDescription(why), true);
            return;
        }
        if (before.refusal() != null && before.settled()) {
            LOG.warning("the nodes' clocks agree again (" + o.describe() + ")");
        }
        fix = new Fix(o.millis(), at, null, true);
        noteOutliers(o);
        noteLocalOffset(o.millis() + (System.nanoTime() - at) / 1_000_000);
    }

    private void noteOutliers(ClockAgreement.Outcome o) {
        String now = o.outliers().stream().map(ClockAgreement.Reading::node).sorted().toList().toString();
        if (!now.equals(outliers) && !o.outliers().isEmpty()) {
            LOG.warning("nodes " + now + " have clocks more than clock.skew.millis=" + maxSkewMillis + " from the others' ("
                    + o.describe() + "); cluster time follows the majority: fix their time synchronisation (NTP)");
        }
        outliers = o.outliers().isEmpty() ? "" : now;
    }

    private void noteLocalOffset(long clusterMillis) {
        long offset = local.millis() - clusterMillis;
        localOffsetMillis = offset;
        boolean skewed = Math.abs(offset) > maxSkewMillis;
        if (skewed && !localSkewed) {
            LOG.warning("this router's clock is " + Math.abs(offset) / 1000 + " s " + (offset > 0 ? "ahead of" : "behind")
                    + " its nodes'; generations and URL expiry follow the nodes' clocks, not this one: fix this host's time synchronisation");
        }
        localSkewed = skewed;
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
