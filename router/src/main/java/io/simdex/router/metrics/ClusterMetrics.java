package io.simdex.router.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.simdex.router.clock.ClusterClock;
import io.simdex.router.cluster.AtomixMember;
import io.simdex.router.cluster.ClusterView;
import io.simdex.router.cluster.MissedWrites;
import io.simdex.router.cluster.PartitionMap;
import io.simdex.router.cluster.PartitionMapStore;
import io.simdex.server.NodeState;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/**
 * Cluster gauges, as the process sees the cluster. Both roles publish
 * <pre>
 *   simdex_cluster_epoch               the partition map's epoch (NaN before the first map)
 *   simdex_cluster_moving_partitions   partitions with a replica being copied in (a move in progress)
 *   simdex_cluster_members_live        Atomix members the failure detector reports up, routers included
 * </pre>
 * A router adds, per placed node ({@code node} tag): {@code simdex_cluster_node_up},
 * {@code simdex_cluster_node_behind} (1 while the node is marked as having missed acknowledged
 * writes and has not caught up: reads avoid it), {@code simdex_cluster_node_partitions} and
 * {@code _incoming}, and the counter {@code simdex_cluster_missed_writes_total}: writes the
 * quorum acknowledged that failed on that replica, as this router saw them, and
 * {@code simdex_router_clock_offset_seconds}: its own clock minus its nodes' agreed clock at the
 * last reading (positive: ahead; see ClusterClock). A node adds
 * {@code simdex_node_readable}: 0 while it catches up from its peers and refuses reads, and the
 * counters of its catch-ups ({@link CatchUps}).
 */
public final class ClusterMetrics {
    private ClusterMetrics() {
    }

    /** A cluster router's gauges over its view of the map, membership and missed-write reports. */
    public static void bindRouter(MetricsEndpoint endpoint, ClusterView view, AtomixMember member, MissedWrites missed) {
        MeterRegistry registry = endpoint.registry();
        common(registry, view::map, member);
        MultiGauge up = MultiGauge.builder("simdex.cluster.node.up").description("1 if membership reports the node up").register(registry);
        MultiGauge behind = MultiGauge.builder("simdex.cluster.node.behind")
                .description("1 while the node missed acknowledged writes and has not caught up").register(registry);
        MultiGauge partitions = MultiGauge.builder("simdex.cluster.node.partitions")
                .description("Partitions the node serves as a replica").register(registry);
        MultiGauge incoming = MultiGauge.builder("simdex.cluster.node.incoming")
                .description("Partitions being copied to the node").register(registry);
        endpoint.beforeScrape(() -> {
            PartitionMap map = view.map();
            Set<String> live = member.liveIds();
            List<MultiGauge.Row<?>> upRows = new ArrayList<>();
            List<MultiGauge.Row<?>> behindRows = new ArrayList<>();
            List<MultiGauge.Row<?>> partitionRows = new ArrayList<>();
            List<MultiGauge.Row<?>> incomingRows = new ArrayList<>();
            if (map != null) {
                for (Map.Entry<String, int[]> e : map.shares().entrySet()) {
                    Tags node = Tags.of("node", e.getKey());
                    upRows.add(MultiGauge.Row.of(node, live.contains(e.getKey()) ? 1 : 0));
                    behindRows.add(MultiGauge.Row.of(node, missed.suspect(e.getKey()) ? 1 : 0));
                    partitionRows.add(MultiGauge.Row.of(node, e.getValue()[0]));
                    incomingRows.add(MultiGauge.Row.of(node, e.getValue()[1]));
                }
            }
            up.register(upRows, true);
            behind.register(behindRows, true);
            partitions.register(partitionRows, true);
            incoming.register(incomingRows, true);
            for (String node : missed.reportCounts().keySet()) { // registered once per node, then read at each scrape
                FunctionCounter.builder("simdex.cluster.missed.writes", missed, m -> m.reportCounts().getOrDefault(node, 0L))
                        .description("Writes acknowledged by their quorum that failed on this replica, as this router saw")
                        .tag("node", node).register(registry);
            }
        });
    }

    /** A cluster router's distance from its nodes' time. */
    public static void bindClock(MetricsEndpoint endpoint, ClusterClock clock) {
        Gauge.builder("simdex.router.clock.offset", clock, c -> c.localOffsetMillis() / 1000.0).baseUnit("seconds")
                .description("This router's clock minus its nodes' agreed clock at the last reading").register(endpoint.registry());
    }

    /** A cluster node's gauges: its fence epoch, whether it serves reads, membership, moves. */
    public static void bindNode(MetricsEndpoint endpoint, NodeState state, AtomixMember member, PartitionMapStore store, CatchUps catchUps) {
        MeterRegistry registry = endpoint.registry();
        common(registry, store::lastSeenOrNull, member);
        Gauge.builder("simdex.node.readable", state, s -> s.readable() ? 1 : 0)
                .description("1 if the node serves reads, 0 while it catches up from its peers").register(registry);
        FunctionCounter.builder("simdex.node.catchup.removed", catchUps.removed, LongAdder::sum)
                .description("Records a catch-up removed because the peer no longer had them: deletes and rebinds the node missed")
                .register(registry);
        FunctionCounter.builder("simdex.node.catchup.refused", catchUps.refused, LongAdder::sum)
                .description("Catch-up pulls that removed nothing: the peer fell behind, or lacked too much to trust")
                .register(registry);
        FunctionCounter.builder("simdex.node.stale.intents.settled", catchUps.settledIntents, LongAdder::sum)
                .description("Dedup intents a catch-up settled because the peers had settled them").register(registry);
        FunctionCounter.builder("simdex.node.missed.intents.taken", catchUps.adoptedIntents, LongAdder::sum)
                .description("Dedup intents a catch-up took from the peers because the node had missed their record").register(registry);
        FunctionCounter.builder("simdex.node.catchup.records", catchUps.records, LongAdder::sum)
                .description("Records catch-ups copied from peers").register(registry);
        FunctionCounter.builder("simdex.node.catchup.skipped", catchUps.skipped, LongAdder::sum)
                .description("Starts that served reads without a pull: same boot, same placement, no write missed").register(registry);
    }

    /**
     * What a node's catch-ups did: its counters, as {@code simdex_node_catchup_*_total},
     * {@code simdex_node_stale_intents_settled_total} and {@code simdex_node_missed_intents_taken_total}.
     */
    public static final class CatchUps {
        public final LongAdder removed = new LongAdder();
        public final LongAdder refused = new LongAdder();
        public final LongAdder settledIntents = new LongAdder();
        public final LongAdder adoptedIntents = new LongAdder();
        public final LongAdder records = new LongAdder();
        public final LongAdder skipped = new LongAdder();
    }

    private static void common(MeterRegistry registry, Supplier<PartitionMap> map, AtomixMember member) {
        Gauge.builder("simdex.cluster.epoch", map, m -> m.get() == null ? Double.NaN : m.get().epoch())
                .strongReference(true).description("Epoch of the newest partition map seen").register(registry);
        Gauge.builder("simdex.cluster.moving.partitions", map, m -> m.get() == null ? Double.NaN : m.get().moving())
                .strongReference(true).description("Partitions with a replica being copied in").register(registry);
        Gauge.builder("simdex.cluster.members.live", member, m -> m.liveIds().size())
                .description("Cluster members the failure detector reports up").register(registry);
    }
}
