package io.simdex.ops.cluster;

import io.simdex.proto.v1.SimdexGrpc;
import io.simdex.router.api.Catalog;
import io.simdex.router.api.RetentionSweeper;
import io.simdex.router.api.SimdexService;
import io.simdex.router.clock.ClusterClock;
import io.simdex.router.cluster.AdminService;
import io.simdex.router.cluster.AtomixMember;
import io.simdex.router.cluster.ClusterConfig;
import io.simdex.router.cluster.ClusterView;
import io.simdex.router.cluster.MissedWrites;
import io.simdex.router.cluster.PartitionMapStore;
import io.simdex.router.cluster.SharedCatalog;
import io.simdex.router.metrics.ClusterMetrics;
import io.simdex.router.metrics.MetricsEndpoint;
import io.simdex.router.transport.InlineCalls;
import io.simdex.router.transport.PublicServer;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * A stateless cluster router: an Atomix client member that watches the partition map and
 * serves the public API (and Admin) over the nodes. Any number can run.
 */
public final class ClusterRouter implements AutoCloseable {
    private final AtomixMember member;
    private final ClusterView view;
    private final PublicServer server;
    private final RetentionSweeper sweeper;
    private final MetricsEndpoint metrics;
    private final ClusterClock clock;
    private final SharedCatalog catalog;

    private ClusterRouter(AtomixMember member, ClusterView view, PublicServer server, RetentionSweeper sweeper, MetricsEndpoint metrics,
            ClusterClock clock, SharedCatalog catalog) {
        this.clock = clock;
        this.catalog = catalog;
        this.member = member;
        this.view = view;
        this.server = server;
        this.sweeper = sweeper;
        this.metrics = metrics;
    }

    public static ClusterRouter start(ClusterConfig config) throws Exception {
        AtomixMember member = new AtomixMember(config, "router", config.data().resolve("atomix"), null);
        PartitionMapStore store = new PartitionMapStore(member.atomix());
        awaitMap(store, Duration.ofMinutes(2));
        MissedWrites missed = new MissedWrites(member.atomix()).watching();
        ClusterView view = new ClusterView(store, member::liveIds, config.hedgeMillis(), missed, config.security().peers(),
                config.dedupLeaseMillis());
        Set<String> raft = config.raft().isEmpty()
                ? config.seeds().stream().map(ClusterConfig.Seed::id).collect(Collectors.toSet()) : config.raft();
        ClusterClock clock = ClusterClock.start(view::nodeChannels, ownClock(), config.clockSkewMillis());
        SharedCatalog shared = new SharedCatalog(member.atomix());
        Catalog catalog = new Catalog(config.data(), shared);
        shared.watch(catalog::all);
        SimdexService service = new SimdexService(view, catalog, clock);
        MetricsEndpoint metrics = null;
        if (config.metricsPort() != ClusterConfig.NO_METRICS) {
            metrics = MetricsEndpoint.start(config.host(), config.metricsPort());
            service.handlingTimes().publishTo(metrics.grpcCalls());
            service.outcomes().bindTo(metrics);
            ClusterMetrics.bindRouter(metrics, view, member, missed);
            ClusterMetrics.bindClock(metrics, clock);
        }
        PublicServer server = PublicServer.start(config.host(), config.port(), service.bindService(), SimdexGrpc.SERVICE_NAME,
                List.of(new AdminService(member, store, view, raft).bindService()), config.handlerThreads(), InlineCalls.routerReads(catalog::cached),
                service.handlingTimes(), config.security().publicPort());
        return new ClusterRouter(member, view, server, RetentionSweeper.start(service, Set.of()), metrics, clock, shared);
    }

    /** Test only: offsets this router's own clock. */
    static final String TEST_CLOCK_OFFSET = "simdex.test.clockOffsetSeconds";

    /**
     * This process's wall clock, which only tells how far it is from the nodes' ({@link ClusterClock}).
     * For tests only, the system property {@value #TEST_CLOCK_OFFSET} moves it by that many seconds,
     * to show that a router whose host clock is wrong still writes and expires the cluster's generations.
     */
    static Clock ownClock() {
        long offset = Long.getLong(TEST_CLOCK_OFFSET, 0);
        return offset == 0 ? Clock.systemUTC() : Clock.offset(Clock.systemUTC(), Duration.ofSeconds(offset));
    }

    /** The founding nodes write the first map; a router started first waits for it. */
    private static void awaitMap(PartitionMapStore store, Duration limit) throws InterruptedException {
        long until = System.nanoTime() + limit.toNanos();
        while (true) {
            try {
                if (store.current() != null) {
                    return;
                }
            } catch (RuntimeException noQuorumYet) {
                // retry
            }
            if (System.nanoTime() > until) {
                throw new IllegalStateException("no partition map after " + limit + ": are the founding nodes running?");
            }
            Thread.sleep(500);
        }
    }

    public int port() {
        return server.port();
    }

    /** The metrics endpoint, or null without {@code metrics.port}. */
    public MetricsEndpoint metrics() {
        return metrics;
    }

    public ClusterView view() {
        return view;
    }

    public void awaitTermination() throws InterruptedException {
        server.awaitTermination();
    }

    @Override
    public void close() throws Exception {
        if (metrics != null) {
            metrics.close();
        }
        sweeper.close();
        server.close();
        clock.close();
        view.close();
        catalog.close();
        member.close();
    }
}
