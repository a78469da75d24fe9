package io.simdex.router.cluster;

import io.atomix.cluster.ClusterMembershipEventListener;
import io.atomix.cluster.Member;
import io.atomix.cluster.Node;
import io.atomix.cluster.discovery.BootstrapDiscoveryProvider;
import io.atomix.cluster.protocol.HeartbeatMembershipProtocol;
import io.atomix.core.Atomix;
import io.atomix.core.AtomixBuilder;
import io.atomix.core.registry.ClasspathScanningRegistry;
import io.atomix.primitive.partition.ManagedPartitionGroup;
import io.atomix.protocols.raft.partition.RaftPartitionGroup;
import io.atomix.storage.StorageLevel;
import io.simdex.server.tls.TlsFiles;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * This process as an Atomix 3 member: found through the seed list (bootstrap discovery),
 * watched by a heartbeat failure detector, and, for founding nodes, a member of the Raft group
 * that keeps the partition map. Others (routers, nodes added later) are Raft clients.
 *
 * <p>Failure detection (ops/docs/CLUSTER.md, "Atomix"): heartbeat 500 ms and phi 2 report a
 * SIGKILLed member removed after about 2.3 s, as 250 ms and phi 4 did, at half the messages
 * (phi grows with the silence over the mean interval); Atomix's defaults take 23 s.
 */
public final class AtomixMember implements AutoCloseable {
    public static final String ROLE = "role";
    public static final String ADDRESS = "address";

    private final Atomix atomix;

    /** Blocks until joined; a Raft member also waits until the Raft groups have a leader (needs a quorum of them). */
    public AtomixMember(ClusterConfig config, String role, Path raftDir, ClusterMembershipEventListener listener) throws Exception {
        AtomixBuilder b = Atomix.builder(ClasspathScanningRegistry.builder().addWhitelistPackage("io.atomix").build())
                .withClusterId("simdex").withMemberId(config.id())
                .withHost(config.host()).withPort(config.atomixPort())
                .withMessagingInterface(config.host()) // Atomix binds 0.0.0.0 otherwise
                .withMembershipProvider(BootstrapDiscoveryProvider.builder()
                        .withNodes(config.seeds().stream().map(s -> Node.builder().withId(s.id()).withHost(s.host()).withPort(s.port())
                                .build()).collect(Collectors.toList()))
                        .build())
                .withMembershipProtocol(HeartbeatMembershipProtocol.builder()
                        .withHeartbeatInterval(Duration.ofMillis(500))
                        .withFailureThreshold(2)
                        .withFailureTimeout(Duration.ofSeconds(3))
                        .build())
                .withProperty(ROLE, role)
                .withProperty(ADDRESS, config.address())
                .withShutdownHook(false);
        config.security().checkPeerListen(config.host());
        if (config.security().mutualTls()) {
            AtomixTls.apply(b, new TlsFiles(config.security().tlsCert(), config.security().tlsKey(), config.security().clusterCa()),
                    raftDir.resolveSibling("atomix-tls"));
        }
        if (config.raft().contains(config.id())) {
            b.withManagementGroup(raftGroup("system", config.raft(), raftDir))
                    .withPartitionGroups(raftGroup("raft", config.raft(), raftDir));
        }
        atomix = b.build();
        atomix.getMembershipService().addListener(e -> refreshLive());
        if (listener != null) {
            atomix.getMembershipService().addListener(listener); // before start: no event missed
        }
        atomix.start().get(120, TimeUnit.SECONDS);
        refreshLive();
    }

    private volatile Set<String> live = Set.of();

    private void refreshLive() {
        live = Set.copyOf(members().stream().filter(m -> m.isActive() && m.isReachable()).map(m -> m.id().id()).toList());
    }

    private static ManagedPartitionGroup raftGroup(String name, Set<String> members, Path dir) {
        return RaftPartitionGroup.builder(name).withNumPartitions(1).withPartitionSize(members.size())
                .withMembers(members).withStorageLevel(StorageLevel.DISK)
                .withDataDirectory(dir.resolve(name).toFile()).build();
    }

    public Atomix atomix() {
        return atomix;
    }

    public Collection<Member> members() {
        return atomix.getMembershipService().getMembers();
    }

    /** Ids of the members the failure detector reports up. */
    public Set<String> liveIds() {
        return live; // kept current by membership events: read on every replica choice
    }

    public static Map<String, String> properties(Member m) {
        return m.properties().stringPropertyNames().stream().collect(Collectors.toMap(k -> k, k -> m.properties().getProperty(k)));
    }

    @Override
    public void close() throws Exception {
        atomix.stop().get(30, TimeUnit.SECONDS);
    }
}
