package io.simdex.ops.cluster;

import io.grpc.Server;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import io.simdex.core.Partitions;
import io.simdex.proto.v1.PlacedNode;
import io.simdex.proto.v1.ShardControlGrpc;
import io.simdex.proto.v1.ShardGrpc;
import io.simdex.router.cluster.AtomixMember;
import io.simdex.router.cluster.ClusterConfig;
import io.simdex.router.cluster.MissedWrites;
import io.simdex.router.cluster.PartitionMap;
import io.simdex.router.cluster.PartitionMapStore;
import io.simdex.router.metrics.ClusterMetrics;
import io.simdex.router.metrics.MetricsEndpoint;
import io.simdex.router.metrics.StoreMetrics;
import io.simdex.router.transport.HandlerThreads;
import io.simdex.router.transport.InlineCalls;
import io.simdex.server.IntentAdoption;
import io.simdex.server.NodeState;
import io.simdex.server.PartitionMirror;
import io.simdex.server.PartitionPuller;
import io.simdex.server.StaleIntents;
import io.simdex.server.ShardControlService;
import io.simdex.server.ShardNode;
import io.simdex.server.ShardService;
import io.simdex.server.StreamedRequests;
import io.simdex.server.grpc.ServerBounds;
import io.simdex.server.store.StoreSizing;
import io.simdex.server.tls.PeerCredentials;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A shard node of a cluster: the shard service (fenced by placement epoch) plus an Atomix
 * member. Founding nodes keep the Raft group and write the first partition map.
 *
 * <p>After a restart the node may have missed the writes made while it was down. It takes writes
 * at once but refuses reads ("catching up", so routers fail over) until it has pulled each of its
 * partitions from a live peer replica, or found that it missed nothing ({@link InSyncStamp}).
 * It mirrors them ({@link PartitionMirror}) from a peer that no router reports behind: what
 * that peer no longer holds (a delete or rebind made while this node was down) goes here too;
 * from a peer itself behind it only copies. The same happens while it runs when a router
 * reports that it missed an acknowledged write ({@link MissedWrites}). A router marks a node only after
 * the write quorum has the write, with a put issued after that, and acknowledges the write
 * only once the mark is committed: so a mark the node reads before it starts pulling is covered
 * by that pull, and a later one makes it pull again before it clears its mark. A write still
 * on its way to the node when the node was marked (it was late, not failed) may land during or
 * after the pull: applies are idempotent, so it only adds what the peers have too.
 */
public final class ClusterNode implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(ClusterNode.class.getName());
    /** Before pulling: lets writes in flight settle and their reports arrive, so one pull usually covers them. */
    static final Duration CATCH_UP_DELAY = Duration.ofSeconds(2);

    private final ClusterConfig config;
    private final ShardNode node;
    private final NodeState state;
    private final Server server;
    private final HealthStatusManager health;
    private final AtomixMember member;
    private final PartitionMapStore store;
    private final MissedWrites missed;
    private final Thread catchUp;
    private final MetricsEndpoint metrics;
    private final PeerCredentials peers;
    private final ExecutorService handlers;
    private final ClusterMetrics.CatchUps catchUps;
    /** The Dedup intents pending when the stores opened, before this process took any call. */
    private final long[] keptIntents;
    /** The map of the last stamp this process wrote or found true; null while a catch-up runs. Guarded by this. */
    private PartitionMap stamped;

    private ClusterNode(ClusterConfig config, ShardNode node, NodeState state, Server server, HealthStatusManager health,
            AtomixMember member, PartitionMapStore store, MetricsEndpoint metrics, PeerCredentials peers, ExecutorService handlers,
            ClusterMetrics.CatchUps catchUps, long[] keptIntents) {
        this.catchUps = catchUps;
        this.keptIntents = keptIntents;
        this.handlers = handlers;
        this.metrics = metrics;
        this.config = config;
        this.node = node;
        this.state = state;
        this.server = server;
        this.health = health;
        this.member = member;
        this.store = store;
        this.missed = new MissedWrites(member.atomix()).watching();
        this.peers = peers;
        this.catchUp = new Thread(this::catchUp, "catch-up");
        this.catchUp.setDaemon(true);
    }

    public static ClusterNode start(ClusterConfig config) throws Exception {
        config.security().checkNode(config.host()); // before any file is opened
        PeerCredentials peers = config.security().peers();
        int founders = Math.max(1, config.raft().size());
        StoreSizing sizing = StoreSizing.forReplicas(config.expected(), config.replication(), founders, 24);
        ShardNode node = new ShardNode(config.data().resolve("shard"), c -> sizing, config.durability());
        node.openStored();
        long[] keptIntents = node.pendingIntents(); // before any call: those of the last process
        NodeState state = new NodeState(config.id(), 0, false);
        HealthStatusManager health = new HealthStatusManager();
        NettyServerBuilder builder = ServerBounds.apply(
                NettyServerBuilder.forAddress(new InetSocketAddress(config.host(), config.port()), peers.server()));
        MetricsEndpoint metrics = null;
        ClusterMetrics.CatchUps catchUps = new ClusterMetrics.CatchUps();
        if (config.metricsPort() != ClusterConfig.NO_METRICS) {
            metrics = MetricsEndpoint.start(config.host(), config.metricsPort());
            builder.addStreamTracerFactory(metrics.grpcCalls());
            StoreMetrics.bind(metrics, List.of(node));
        }
        // Small reads answer on the transport thread (InlineCalls.SHARD_READS); the rest keep an
        // unbounded pool, as gRPC's default, since lock calls wait for other routers' unlocks.
        // Writes that wait for a force of the log are answered from it too.
        AtomicInteger handlerCount = new AtomicInteger();
        ExecutorService handlers = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "shard-handler-" + handlerCount.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        Server server = builder
                .directExecutor()
                .intercept(new InlineCalls(handlers, InlineCalls.SHARD_READS))
                .addService(ServerBounds.lenient(ShardService.withFence(node, state,
                        metrics == null ? StreamedRequests.NONE : metrics.grpcCalls()::record, handlers)))
                .addService(ServerBounds.lenient(ShardControlService.withFence(node, state, peers)))
                .addService(health.getHealthService())
                .build().start();
        AtomixMember member = new AtomixMember(config, "node", config.data().resolve("atomix"), null);
        PartitionMapStore store = new PartitionMapStore(member.atomix());
        PartitionMap map = config.raft().contains(config.id()) ? initialize(config, member, store) : await(store);
        state.raiseEpoch(map.epoch());
        store.watch(m -> state.raiseEpoch(m.epoch()));
        health.setStatus("", ServingStatus.SERVING);
        health.setStatus(ShardGrpc.SERVICE_NAME, ServingStatus.SERVING);
        health.setStatus(ShardControlGrpc.SERVICE_NAME, ServingStatus.SERVING);
        if (metrics != null) {
            ClusterMetrics.bindNode(metrics, state, member, store, catchUps);
        }
        ClusterNode n = new ClusterNode(config, node, state, server, health, member, store, metrics, peers, handlers, catchUps,
                keptIntents);
        store.watch(n::onNewMap);
        n.catchUp.start();
        return n;
    }

    /** The first map, once every founding node has joined (their addresses come from membership). */
    private static PartitionMap initialize(ClusterConfig config, AtomixMember member, PartitionMapStore store) throws InterruptedException {
        while (true) {
            PartitionMap existing = store.current();
            if (existing != null) {
                return existing;
            }
            Map<String, String> addresses = new LinkedHashMap<>();
            member.members().forEach(m -> {
                String a = m.properties().getProperty(AtomixMember.ADDRESS);
                if (a != null && "node".equals(m.properties().getProperty(AtomixMember.ROLE))) {
                    addresses.put(m.id().id(), a);
                }
            });
            if (addresses.keySet().containsAll(config.raft())) {
                List<PlacedNode> nodes = new ArrayList<>();
                config.raft().forEach(id -> nodes.add(PlacedNode.newBuilder().setId(id).setAddress(addresses.get(id)).build()));
                PartitionMap map = store.initializeIfAbsent(PartitionMap.initial(nodes, config.replication(), config.writeQuorum()));
                LOG.info("partition map: " + map);
                return map;
            }
            Thread.sleep(200);
        }
    }

    private static PartitionMap await(PartitionMapStore store) throws InterruptedException {
        while (true) {
            PartitionMap m = store.current();
            if (m != null) {
                return m;
            }
            Thread.sleep(500);
        }
    }

    /**
     * Catches up after the start, then whenever a router reports that this node missed an
     * acknowledged write ({@link MissedWrites}): stop serving reads, let writes in flight
     * settle, mirror every partition from a live peer, clear the report, serve reads again.
     */
    private void catchUp() {
        try {
            InSyncStamp stamp = InSyncStamp.read(node.dataDir()); // before this start's catch-up rewrites it
            boolean first = true;
            while (!Thread.currentThread().isInterrupted()) {
                long seen = missed.changes();
                long mark;
                try {
                    mark = missed.markVersion(config.id());
                } catch (RuntimeException noQuorumNow) {
                    Thread.sleep(1000);
                    continue;
                }
                if (first || mark >= 0) {
                    if (state.readable()) {
                        state.readable(false);
                        LOG.warning(config.id() + " missed acknowledged writes: catching up before serving reads again");
                    }
                    Thread.sleep(CATCH_UP_DELAY.toMillis());
                    try {
                        mark = missed.markVersion(config.id());
                    } catch (RuntimeException noQuorumNow) {
                        // A founder that just restarted may not have its Raft session yet: this
                        // thread must outlive that, or the node stays unreadable for good.
                        Thread.sleep(1000);
                        continue;
                    }
                    if (first && mark < 0 && servesWithoutPull(stamp)) {
                        first = false;
                        continue;
                    }
                    if (catchUpOnce(mark)) {
                        first = false;
                    } else {
                        Thread.sleep(2000);
                    }
                    continue;
                }
                missed.awaitChange(seen, 2 * MissedWrites.SAFETY_POLL.toMillis()); // a mark's event, or the map's poll
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * One pull from the peers; true if it succeeded and no newer report came meanwhile (then
     * reads resume). A node known to have missed writes stays unreadable while one of its
     * partitions has no live peer to copy from: better unavailable than wrong.
     */
    private boolean catchUpOnce(long mark) {
        synchronized (this) {
            stamped = null; // until this catch-up ends: a new map meanwhile moves no stamp
        }
        try {
            long[] intentsBefore = node.pendingIntents();
            Pulled pulled = pullFromPeers();
            int uncovered = pulled.uncovered();
            if (pulled.placed() && uncovered == 0 && pulled.copies().everyMirrored()) {
                settleStaleIntents(intentsBefore, pulled.peers());
            }
            adoptPeersIntents(pulled);
            if (mark >= 0 && uncovered > 0) {
                LOG.warning(config.id() + " missed writes and " + uncovered + " of its partitions have no live peer: not serving reads yet");
                return false;
            }
            if (mark >= 0 && !missed.clear(config.id(), mark)) {
                return false; // reported again during the pull: go again, still unreadable
            }
            state.readable(true);
            LOG.info(config.id() + " caught up: serving reads");
            if (!pulled.placed() || uncovered == 0 && pulled.copies().everyMirrored()) {
                stamp(pulled.map()); // not after a partial pull: the next start pulls again
            }
            return true;
        } catch (RuntimeException e) {
            LOG.warning(config.id() + " catch-up failed (" + e + "); retrying");
            return false;
        }
    }

    /**
     * At the start: serves reads without pulling when the stamp the last catch-up left vouches
     * that this node holds its share ({@link InSyncStamp}: same boot, same placement epoch) and
     * no router marked it since ({@code mark} was read after {@link #CATCH_UP_DELAY}, as for a
     * pull). The Dedup intents its last process left are settled against its in-sync peers, as
     * after a pull.
     */
    private boolean servesWithoutPull(InSyncStamp stamp) {
        PartitionMap map = store.current();
        String boot = InSyncStamp.currentBoot();
        if (stamp == null || !stamp.vouchesFor(config.id(), map.epoch(), boot)) {
            LOG.info(config.id() + " pulls its partitions: " + (stamp == null ? "no " + InSyncStamp.FILE + " from a completed catch-up"
                    : "its last catch-up was " + stamp + ", this start is on boot " + boot + " in placement epoch " + map.epoch()));
            return false;
        }
        int me = map.indexOf(config.id());
        Sources sources = me < 0 ? null : sources(map, me);
        if (sources != null && sources.allInSync()) { // else they stay pending, as after a pull that could not mirror all
            settleStaleIntents(keptIntents, sources.addresses(map));
        }
        state.readable(true);
        synchronized (this) {
            stamped = map;
        }
        catchUps.skipped.increment();
        LOG.info(config.id() + " restarted on the same boot in placement epoch " + map.epoch()
                + " and missed no write: serving reads without pulling its partitions");
        return true;
    }

    /** Records that this node now holds every acknowledged write of the partitions {@code map} places on it ({@link InSyncStamp}). */
    private synchronized void stamp(PartitionMap map) {
        String boot = InSyncStamp.currentBoot();
        if (boot == null) {
            return; // no boot id here: every start pulls
        }
        try {
            new InSyncStamp(config.id(), map.epoch(), boot).write(node.dataDir());
            stamped = map;
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, config.id() + " could not write " + InSyncStamp.FILE + ": its next start pulls its partitions", e);
        }
    }

    /**
     * A new placement that only takes partitions from this node (a node added elsewhere, a move
     * starting): what it serves then it served under the stamped map and holds, so the stamp
     * moves to the new epoch and a restart after the move need not pull. Not while it catches
     * up (no stamped map then), nor when it gains a partition: that start pulls.
     */
    private synchronized void onNewMap(PartitionMap map) {
        if (stamped == null || !state.readable() || map.epoch() <= stamped.epoch()) {
            return;
        }
        int me = map.indexOf(config.id());
        int before = stamped.indexOf(config.id());
        for (int p = 0; me >= 0 && p < Partitions.COUNT; p++) {
            if (map.isReplica(p, me) && (before < 0 || !stamped.isReplica(p, before))) {
                return;
            }
        }
        stamp(map);
    }

    /** Settles the Dedup intents kept here from before the catch-up that no peer holds any more ({@link StaleIntents}). */
    private void settleStaleIntents(long[] before, List<String> peerAddresses) {
        try {
            int settled = StaleIntents.settle(node, before, peerAddresses, peers);
            catchUps.settledIntents.add(settled);
            if (settled > 0) {
                LOG.info(config.id() + " settled " + settled + " Dedup intents its peers had settled while it was behind");
            }
        } catch (RuntimeException e) {
            LOG.warning(config.id() + " could not ask its peers which Dedup intents they hold (" + e + "); its own stay pending");
        }
    }

    /**
     * Takes the Dedup intents this node missed from the peers it mirrored in sync, those whose
     * keys all lie in partitions copied from such peers ({@link IntentAdoption},
     * {@link CatchUpCopies}), before it serves again; a failure fails the catch-up, which is
     * tried again.
     */
    private void adoptPeersIntents(Pulled pulled) {
        List<String> mirrored = pulled.copies().mirroredPeers().stream().map(r -> pulled.map().nodes().get(r).getAddress()).toList();
        if (mirrored.isEmpty()) {
            return;
        }
        int adopted = IntentAdoption.adopt(node, mirrored, peers, pulled.copies().mirroredBucketKeys());
        catchUps.adoptedIntents.add(adopted);
        if (adopted > 0) {
            LOG.info(config.id() + " took " + adopted + " Dedup intents from its peers that it missed while behind");
        }
    }

    /**
     * What a catch-up pulled: whether this node is placed at all, partitions without a live peer,
     * the addresses of the peers copied from, and which partition came from which peer and how
     * (in the partition map {@code map}).
     */
    private record Pulled(boolean placed, int uncovered, List<String> peers, CatchUpCopies copies, PartitionMap map) {
    }

    /** Pulls every partition of this node from a live peer, one in sync if any. */
    private Pulled pullFromPeers() {
        PartitionMap map = store.current();
        int me = map.indexOf(config.id());
        if (me < 0) {
            return new Pulled(false, 0, List.of(), new CatchUpCopies(), map); // not placed yet: nothing to catch up on
        }
        Sources sources = sources(map, me);
        CatchUpCopies copies = pullInParallel(map, sources.byPeer(), sources.inSync());
        return new Pulled(true, sources.uncovered(), sources.addresses(map), copies, map);
    }

    /**
     * Where node {@code me} would pull its partitions from: per peer, its partitions; which
     * peers no router marked; how many partitions have no live peer. A partition takes a live
     * peer in sync if it has one, else a live one itself behind.
     */
    private record Sources(Map<Integer, List<Integer>> byPeer, Map<Integer, Boolean> inSync, int uncovered) {
        boolean allInSync() {
            return uncovered == 0 && byPeer.keySet().stream().allMatch(inSync::get);
        }

        List<String> addresses(PartitionMap map) {
            return byPeer.keySet().stream().map(r -> map.nodes().get(r).getAddress()).toList();
        }
    }

    private Sources sources(PartitionMap map, int me) {
        int uncovered = 0;
        Set<String> live = member.liveIds();
        Map<Integer, Boolean> inSync = new HashMap<>();
        Map<Integer, List<Integer>> byPeer = new LinkedHashMap<>();
        for (int p = 0; p < Partitions.COUNT; p++) {
            int[] replicas = map.replicas(p);
            if (Arrays.stream(replicas).noneMatch(r -> r == me)) {
                continue;
            }
            boolean covered = replicas.length == 1;
            int chosen = -1;
            for (int r : replicas) {
                if (r == me || !live.contains(map.nodes().get(r).getId())) {
                    continue;
                }
                // A peer known to have missed writes is copied from only when no other is live.
                boolean sync = inSync.computeIfAbsent(r, k -> inSync(map.nodes().get(k).getId()));
                if (chosen < 0 || sync && !inSync.get(chosen)) {
                    chosen = r;
                }
                if (sync) {
                    break;
                }
            }
            if (chosen >= 0) {
                byPeer.computeIfAbsent(chosen, k -> new ArrayList<>()).add(p);
                covered = true;
            }
            uncovered += covered ? 0 : 1;
        }
        return new Sources(byPeer, inSync, uncovered);
    }

    /** Whether no router has reported {@code nodeId} as having missed a write (false when that cannot be read now). */
    private boolean inSync(String nodeId) {
        try {
            return missed.markVersion(nodeId) < 0;
        } catch (RuntimeException noQuorumNow) {
            return false;
        }
    }

    /**
     * Pulls the peers' shares at the same time, as many at once as this host has cores: a
     * receiver spends about a core per pull applying what it gets, and a restarted node of R=2
     * over N nodes copies from N - 1 peers. Returns once every pull has ended, with how each
     * went; throws the first failure. Interrupted (the node closing), it cancels the pulls and
     * waits for their threads, so no copy writes to a store being closed.
     */
    private CatchUpCopies pullInParallel(PartitionMap map, Map<Integer, List<Integer>> byPeer, Map<Integer, Boolean> inSync) {
        PartitionPuller puller = new PartitionPuller(node, peers);
        PartitionMirror mirror = new PartitionMirror(node, peers);
        CatchUpCopies copies = new CatchUpCopies();
        ExecutorService pool = HandlerThreads.pool(Math.max(1, Math.min(byPeer.size(), HandlerThreads.perCore())), "catch-up-pull");
        try {
            List<Future<?>> pulls = new ArrayList<>();
            for (Map.Entry<Integer, List<Integer>> e : byPeer.entrySet()) {
                PlacedNode peer = map.nodes().get(e.getKey());
                int[] partitions = e.getValue().stream().mapToInt(Integer::intValue).toArray();
                copies.assign(e.getKey(), partitions);
                pulls.add(pool.submit(() -> {
                    long started = System.nanoTime();
                    if (!inSync.get(e.getKey())) {
                        long records = puller.pull(peer.getAddress(), partitions, n -> { });
                        catchUps.records.add(records);
                        LOG.info(String.format("%s pulled %d partitions from %s (itself behind, so nothing removed here): %d records in %.1f s",
                                config.id(), partitions.length, peer.getId(), records, (System.nanoTime() - started) / 1e9));
                        copies.ended(e.getKey(), false);
                        return null;
                    }
                    // Mirrored: what the peer no longer has (a delete or rebind this node missed) goes here too.
                    PartitionMirror.Result r = mirror.mirror(peer.getAddress(), partitions, PartitionMirror.Settle.waiting(CATCH_UP_DELAY),
                            () -> inSync(peer.getId()), n -> { });
                    catchUps.removed.add(r.removed());
                    catchUps.records.add(r.records());
                    if (r.refused()) {
                        catchUps.refused.increment();
                    }
                    copies.ended(e.getKey(), !r.refused());
                    LOG.info(String.format("%s mirrored %d partitions from %s: %d records in %.1f s, %d removed here%s", config.id(),
                            partitions.length, peer.getId(), r.records(), (System.nanoTime() - started) / 1e9, r.removed(),
                            r.refused() ? " (removal refused, see above)" : ""));
                    return null;
                }));
            }
            RuntimeException failed = null;
            for (Future<?> pull : pulls) {
                try {
                    pull.get();
                } catch (ExecutionException e) {
                    RuntimeException cause = e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
                    if (failed == null) {
                        failed = cause;
                    } else {
                        failed.addSuppressed(cause);
                    }
                }
            }
            if (failed != null) {
                throw failed;
            }
            return copies;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("catch-up interrupted", e);
        } finally {
            pool.shutdownNow(); // interrupts pulls still running: their calls are cancelled
            try {
                if (!pool.awaitTermination(30, TimeUnit.SECONDS)) {
                    LOG.warning(config.id() + ": catch-up pulls still running 30 s after they were cancelled");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    public int port() {
        return server.getPort();
    }

    /** The metrics endpoint, or null without {@code metrics.port}. */
    public MetricsEndpoint metrics() {
        return metrics;
    }

    public NodeState state() {
        return state;
    }

    public void awaitTermination() throws InterruptedException {
        server.awaitTermination();
    }

    @Override
    public void close() throws Exception {
        if (metrics != null) {
            metrics.close();
        }
        catchUp.interrupt();
        missed.close();
        health.enterTerminalState();
        server.shutdown();
        if (!server.awaitTermination(10, TimeUnit.SECONDS)) {
            server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
        HandlerThreads.stop(handlers);
        catchUp.join(TimeUnit.SECONDS.toMillis(40)); // a pull it cancelled ends within 30 s: none writes once the stores close
        store.close();
        member.close();
        node.close();
    }
}
