package io.simdex.router.cluster;

import io.simdex.core.Partitions;
import io.simdex.proto.v1.PlacedNode;
import io.simdex.router.index.IndexRouter;
import io.simdex.router.index.IndexView;
import io.simdex.router.shard.NodeReads;
import io.simdex.router.shard.Placement;
import io.simdex.router.shard.RemoteShardClient;
import io.simdex.router.shard.ReplicaSet;
import io.simdex.router.shard.ShardChannels;
import io.simdex.router.shard.ShardClient;
import io.simdex.server.tls.PeerCredentials;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * A cluster router's index: rebuilt from every new partition map. Each distinct (replicas,
 * incoming) list of the map becomes one {@link ReplicaSet}, and the partitions map to those
 * groups, so {@link IndexRouter} works on a cluster as it does on plain shards. Calls carry the
 * map's epoch (see {@code ShardEpochs}). Channels are kept per node address across maps.
 */
public final class ClusterView implements IndexView, AutoCloseable {
    /** A shard read that takes longer than this fails over to another replica. */
    static final long READ_TIMEOUT_MILLIS = 5_000;
    /** A shard write that takes longer than this counts as failed on that replica. */
    static final long WRITE_TIMEOUT_MILLIS = 15_000;
    /**
     * A replica that has not answered a write this long after the write quorum did (or twice as
     * long as the quorum took, if longer) is marked behind and the write acknowledged without
     * it: one stalled node slows writes by about this much, not by {@link #WRITE_TIMEOUT_MILLIS}.
     * Long enough that a GC pause or a busy core does not send a healthy node to catch up (a
     * full pull of its partitions).
     */
    static final long WRITE_GRACE_MILLIS = 2_000;

    private final PartitionMapStore store;
    private final Supplier<Set<String>> liveIds;
    private final Map<String, RemoteShardClient> channels = new ConcurrentHashMap<>();
    private final long hedgeMillis;
    private final int dedupLeaseMillis;
    private final MissedWrites missed;
    private final PeerCredentials peers;
    private volatile Built built;

    private record Built(PartitionMap map, IndexRouter index) {
    }

    /** @param liveIds the members the failure detector reports up (read per call, so keep it cheap) */
    /** @param missed where replicas that missed acknowledged writes are reported (and then not read from) */
    public ClusterView(PartitionMapStore store, Supplier<Set<String>> liveIds, long hedgeMillis, MissedWrites missed) {
        this(store, liveIds, hedgeMillis, missed, PeerCredentials.PLAINTEXT, IndexRouter.DEFAULT_DEDUP_LEASE_MILLIS);
    }

    /** As above, reaching the nodes with {@code peers}' credentials and leasing Dedup's bucket locks for {@code dedupLeaseMillis}. */
    public ClusterView(PartitionMapStore store, Supplier<Set<String>> liveIds, long hedgeMillis, MissedWrites missed,
            PeerCredentials peers, int dedupLeaseMillis) {
        this.peers = peers;
        this.store = store;
        this.liveIds = liveIds;
        this.hedgeMillis = hedgeMillis;
        this.dedupLeaseMillis = dedupLeaseMillis;
        this.missed = missed;
        store.watch(this::install);
    }

    @Override
    public IndexRouter current() {
        Built b = built;
        if (b == null) {
            throw io.grpc.Status.UNAVAILABLE.withDescription("no partition map yet").asRuntimeException();
        }
        return b.index();
    }

    public PartitionMap map() {
        Built b = built;
        return b == null ? null : b.map();
    }

    @Override
    public void refresh() {
        install(store.current());
    }

    /** The shard client of a node address, not stamped with any epoch (admin calls). */
    public RemoteShardClient node(String address) {
        return channels.computeIfAbsent(address, a -> new RemoteShardClient(ShardChannels.forReplica(a, peers.channel()),
                () -> ShardChannels.forReplica(a, peers.channel())));
    }

    /** Every node of the current map, id to its shard channel (none before the first map): where the cluster's time comes from. */
    public Map<String, io.grpc.Channel> nodeChannels() {
        PartitionMap map = map();
        Map<String, io.grpc.Channel> out = new java.util.LinkedHashMap<>();
        if (map != null) {
            map.nodes().forEach(n -> out.put(n.getId(), node(n.getAddress()).channel()));
        }
        return out;
    }

    /** Whether the Raft map marks {@code nodeId} as having missed an acknowledged write (a read through the Raft group). */
    public boolean markedBehind(String nodeId) {
        return missed.markVersion(nodeId) != -1;
    }

    /** The version of the node's last cleared mark, from the Raft map ({@link MissedWrites#clears}). */
    public long clears(String nodeId) {
        return missed.clears(nodeId);
    }

    private synchronized void install(PartitionMap map) {
        if (map == null || (built != null && built.map().epoch() >= map.epoch())) {
            return;
        }
        built = new Built(map, build(map));
    }

    private IndexRouter build(PartitionMap map) {
        List<PlacedNode> nodes = map.nodes();
        List<RemoteShardClient> stamped = new ArrayList<>(nodes.size());
        for (PlacedNode n : nodes) {
            stamped.add(node(n.getAddress()).atEpoch(map.epoch(), READ_TIMEOUT_MILLIS, WRITE_TIMEOUT_MILLIS));
        }
        java.util.function.IntPredicate live = i -> liveIds.get().contains(nodes.get(i).getId());
        java.util.function.IntPredicate readable = i -> live.test(i) && !missed.suspect(nodes.get(i).getId());
        ReplicaSet.Behind behind = new ReplicaSet.Behind() {
            @Override
            public void suspect(int i) {
                missed.report(nodes.get(i).getId());
            }

            @Override
            public CompletableFuture<Void> mark(int i) {
                return missed.markReported(nodes.get(i).getId());
            }
        };
        Map<String, Integer> groupOf = new HashMap<>();
        List<ShardClient> groups = new ArrayList<>();
        List<int[]> replicasOfGroup = new ArrayList<>();
        int[] groupOfPartition = new int[Partitions.COUNT];
        for (int p = 0; p < Partitions.COUNT; p++) {
            int[] replicas = map.replicas(p);
            int[] incoming = map.incoming(p);
            String key = Arrays.toString(replicas) + Arrays.toString(incoming);
            Integer g = groupOf.get(key);
            if (g == null) {
                g = groups.size();
                groupOf.put(key, g);
                groups.add(new ReplicaSet(pick(stamped, replicas), replicas, pick(stamped, incoming), incoming,
                        Math.min(map.writeQuorum(), replicas.length), live, readable, hedgeMillis, WRITE_GRACE_MILLIS, behind));
                replicasOfGroup.add(replicas);
            }
            groupOfPartition[p] = g;
        }
        // Stats and retention go to each node once; nodes that keep nothing are left out.
        Set<Integer> keeping = new java.util.TreeSet<>();
        for (int p = 0; p < Partitions.COUNT; p++) {
            Arrays.stream(map.replicas(p)).forEach(keeping::add);
        }
        List<ShardClient> each = keeping.stream().map(i -> (ShardClient) stamped.get(i)).toList();
        Placement placement = Placement.of(groupOfPartition);
        // Hedged reads are a replica set's: with hedge.millis set, queries read group by group.
        NodeReads byNode = hedgeMillis > 0 ? null : new NodeReads(stamped, replicasOfGroup.toArray(new int[0][]), placement, readable);
        return new IndexRouter(groups, placement, each, map.replication(), false, byNode, dedupLeaseMillis);
    }

    private static List<ShardClient> pick(List<RemoteShardClient> clients, int[] indexes) {
        List<ShardClient> out = new ArrayList<>(indexes.length);
        for (int i : indexes) {
            out.add(clients.get(i));
        }
        return out;
    }

    @Override
    public void close() {
        store.close();
        missed.close();
        channels.values().forEach(RemoteShardClient::close);
    }
}
