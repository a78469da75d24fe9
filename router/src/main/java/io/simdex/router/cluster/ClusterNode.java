package io.simdex.router.cluster;

import io.grpc.Server;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import io.simdex.core.Partitions;
import io.simdex.proto.v1.PlacedNode;
import io.simdex.proto.v1.ShardGrpc;
import io.simdex.router.PublicServer;
import io.simdex.server.NodeState;
import io.simdex.server.PartitionPuller;
import io.simdex.server.ShardNode;
import io.simdex.server.ShardService;
import io.simdex.server.store.StoreSizing;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * A shard node of a cluster: the shard service (fenced by placement epoch) plus an Atomix
 * member. Founding nodes keep the Raft group and write the first partition map.
 *
 * <p>After a restart the node has missed the writes made while it was down. It takes writes at
 * once but refuses reads ("catching up", so routers fail over) until it has pulled each of its
 * partitions from a live peer replica. It waits one shard-call timeout before pulling: a write
 * that failed here because the node was still down has by then reached the peer, or was never
 * acknowledged.
 */
public final class ClusterNode implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(ClusterNode.class.getName());
    /** Before pulling: longer than a router's shard-call timeout (see the class comment). */
    static final Duration CATCH_UP_DELAY = Duration.ofMillis(ClusterView.CALL_TIMEOUT_MILLIS + 500);

    private final ClusterConfig config;
    private final ShardNode node;
    private final NodeState state;
    private final Server server;
    private final HealthStatusManager health;
    private final AtomixMember member;
    private final PartitionMapStore store;
    private final Thread catchUp;

    private ClusterNode(ClusterConfig config, ShardNode node, NodeState state, Server server, HealthStatusManager health,
            AtomixMember member, PartitionMapStore store) {
        this.config = config;
        this.node = node;
        this.state = state;
        this.server = server;
        this.health = health;
        this.member = member;
        this.store = store;
        this.catchUp = new Thread(this::catchUp, "catch-up");
        this.catchUp.setDaemon(true);
    }

    public static ClusterNode start(ClusterConfig config) throws Exception {
        int founders = Math.max(1, config.raft().size());
        StoreSizing sizing = StoreSizing.forShare(config.expected() * config.replication(), founders, 24);
        ShardNode node = new ShardNode(config.data().resolve("shard"), c -> sizing);
        NodeState state = new NodeState(config.id(), 0, false);
        HealthStatusManager health = new HealthStatusManager();
        Server server = NettyServerBuilder.forAddress(new InetSocketAddress(config.host(), config.port()))
                .addService(ShardService.withFence(node, state))
                .addService(health.getHealthService())
                .maxInboundMessageSize(PublicServer.MAX_MESSAGE_BYTES)
                .build().start();
        AtomixMember member = new AtomixMember(config, "node", config.data().resolve("atomix"), null);
        PartitionMapStore store = new PartitionMapStore(member.atomix());
        PartitionMap map = config.raft().contains(config.id()) ? initialize(config, member, store) : await(store);
        state.raiseEpoch(map.epoch());
        store.watch(m -> state.raiseEpoch(m.epoch()));
        health.setStatus("", ServingStatus.SERVING);
        health.setStatus(ShardGrpc.SERVICE_NAME, ServingStatus.SERVING);
        ClusterNode n = new ClusterNode(config, node, state, server, health, member, store);
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

    /** Pulls this node's partitions from live peers, then serves reads; retries until it succeeds. */
    private void catchUp() {
        try {
            Thread.sleep(CATCH_UP_DELAY.toMillis());
            while (!state.readable()) {
                try {
                    pullFromPeers();
                    state.readable(true);
                    LOG.info(config.id() + " caught up: serving reads");
                } catch (RuntimeException e) {
                    LOG.warning(config.id() + " catch-up failed (" + e + "); retrying in 2 s");
                    Thread.sleep(2000);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void pullFromPeers() {
        PartitionMap map = store.current();
        int me = map.indexOf(config.id());
        if (me < 0) {
            return; // not placed yet: nothing to catch up on
        }
        Set<String> live = member.liveIds();
        Map<Integer, List<Integer>> byPeer = new LinkedHashMap<>();
        for (int p = 0; p < Partitions.COUNT; p++) {
            int[] replicas = map.replicas(p);
            if (Arrays.stream(replicas).noneMatch(r -> r == me)) {
                continue;
            }
            for (int r : replicas) {
                if (r != me && live.contains(map.nodes().get(r).getId())) {
                    byPeer.computeIfAbsent(r, k -> new ArrayList<>()).add(p);
                    break;
                }
            }
        }
        PartitionPuller puller = new PartitionPuller(node);
        for (Map.Entry<Integer, List<Integer>> e : byPeer.entrySet()) {
            PlacedNode peer = map.nodes().get(e.getKey());
            int[] partitions = e.getValue().stream().mapToInt(Integer::intValue).toArray();
            long started = System.nanoTime();
            long records = puller.pull(peer.getAddress(), partitions, n -> { });
            LOG.info(String.format("%s pulled %d partitions from %s: %d records in %.1f s", config.id(), partitions.length,
                    peer.getId(), records, (System.nanoTime() - started) / 1e9));
        }
    }

    public int port() {
        return server.getPort();
    }

    public NodeState state() {
        return state;
    }

    public void awaitTermination() throws InterruptedException {
        server.awaitTermination();
    }

    @Override
    public void close() throws Exception {
        catchUp.interrupt();
        health.enterTerminalState();
        server.shutdown();
        server.awaitTermination(10, TimeUnit.SECONDS);
        store.close();
        member.close();
        node.close();
    }
}
