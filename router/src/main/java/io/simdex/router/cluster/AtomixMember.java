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
import java.util.concurrent.TimeoutException;
import java.util.logging.Level;
import java.util.logging.Logger;
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
    private static final Logger LOG = Logger.getLogger(AtomixMember.class.getName());

    private final Atomix atomix;

    /** The first start attempt's limit; each further attempt has twice the one before. */
    static final Duration START_TIMEOUT = Duration.ofSeconds(60);
    static final int START_ATTEMPTS = 3;

    /**
     * Blocks until joined; a Raft member also waits until the Raft groups have a leader (needs a
     * quorum of them) and it has applied the leader's log up to its commit index. See
     * {@link #AtomixMember(ClusterConfig, String, Path, ClusterMembershipEventListener, Duration, int)}.
     */
    public AtomixMember(ClusterConfig config, String role, Path raftDir, ClusterMembershipEventListener listener) throws Exception {
        this(config, role, raftDir, listener, START_TIMEOUT, START_ATTEMPTS);
    }

    /**
     * Starts the member, giving each attempt {@code firstTimeout}, then twice as long as the one
     * before. An attempt that has not started by then is stopped and a new Atomix instance,
     * on the same ports and Raft storage, starts in its place. A Raft member of Atomix 3.1.12
     * restarted after SIGKILL can find its partition's leader and never finish its start (seen
     * in ReplicatedClusterIT; Atomix #343 and Zeebe #3912 report such stalls, which a new start
     * clears), so waiting longer does not help, while a start that waits for a quorum of Raft
     * members still gets the time the attempts add up to.
     *
     * @throws TimeoutException when no attempt started
     */
    AtomixMember(ClusterConfig config, String role, Path raftDir, ClusterMembershipEventListener listener, Duration firstTimeout,
            int attempts) throws Exception {
        Duration timeout = firstTimeout;
        Atomix started;
        for (int attempt = 1; ; attempt++) {
            Atomix candidate = build(config, role, raftDir);
            candidate.getMembershipService().addListener(e -> refreshLive(candidate));
            if (listener != null) {
                candidate.getMembershipService().addListener(listener); // before start: no event missed
            }
            try {
                candidate.start().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
                started = candidate;
                break;
            } catch (TimeoutException stalled) {
                stopQuietly(candidate);
                if (attempt == attempts) {
                    throw new TimeoutException("Atomix did not start in " + attempts + " attempts, the last of " + timeout.toSeconds()
                            + " s: is a quorum of the Raft members " + config.raft() + " up and reachable?");
                }
                LOG.warning("Atomix did not start within " + timeout.toSeconds() + " s (attempt " + attempt + " of " + attempts
                        + "): stopping it and starting again");
                timeout = timeout.multipliedBy(2);
            }
        }
        atomix = started;
        refreshLive(atomix);
    }

    private static Atomix build(ClusterConfig config, String role, Path raftDir) throws Exception {
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
        return b.build();
    }

    /** Stops an instance whose start stalled, so the next can bind its ports and open its Raft storage. */
    private static void stopQuietly(Atomix stalled) {
        try {
            stalled.stop().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            LOG.log(Level.WARNING, "stopping the stalled Atomix instance failed", e);
        }
    }

    private volatile Set<String> live = Set.of();

    private void refreshLive(Atomix instance) {
        if (atomix != null && instance != atomix) {
            return; // an event of a stopped attempt
        }
        live = Set.copyOf(instance.getMembershipService().getMembers().stream().filter(m -> m.isActive() && m.isReachable())
                .map(m -> m.id().id()).toList());
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
