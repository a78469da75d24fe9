package simdex.cluster;

import io.atomix.cluster.ClusterMembershipEventListener;
import io.atomix.cluster.Node;
import io.atomix.cluster.discovery.BootstrapDiscoveryProvider;
import io.atomix.cluster.protocol.HeartbeatMembershipProtocol;
import io.atomix.core.Atomix;
import io.atomix.core.AtomixBuilder;
import io.atomix.core.registry.ClasspathScanningRegistry;
import io.atomix.primitive.partition.ManagedPartitionGroup;
import io.atomix.protocols.raft.partition.RaftPartitionGroup;
import io.atomix.storage.StorageLevel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.*;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/** Atomix 3.1.12 membership for simdex. Members not listed in raftMembers are client-only (e.g. routers). */
public final class ClusterMembership implements AutoCloseable {
  public record Seed(String id, String host, int port) {
    public static Seed parse(String s) { // id@host:port
      int at = s.indexOf('@'), c = s.lastIndexOf(':');
      return new Seed(s.substring(0, at), s.substring(at + 1, c), Integer.parseInt(s.substring(c + 1)));
    }
  }

  private final Atomix atomix;

  /** Blocks until joined; a Raft member also waits until its Raft groups have a leader (needs a quorum). */
  public ClusterMembership(String memberId, String host, int port, List<Seed> seeds, Set<String> raftMembers,
      Path dataDir, Map<String, String> properties, ClusterMembershipEventListener listener) throws Exception {
    AtomixBuilder b = Atomix.builder(ClasspathScanningRegistry.builder().addWhitelistPackage("io.atomix").build())
        .withClusterId("simdex").withMemberId(memberId)
        .withHost(host).withPort(port)      // one TCP + one UDP socket on this port
        .withMessagingInterface(host)       // bind address; Atomix's default is 0.0.0.0
        .withMembershipProvider(BootstrapDiscoveryProvider.builder()
            .withNodes(seeds.stream().map(s -> Node.builder().withId(s.id()).withHost(s.host()).withPort(s.port())
                .build()).collect(Collectors.toList()))
            .build())
        .withMembershipProtocol(HeartbeatMembershipProtocol.builder()
            .withHeartbeatInterval(Duration.ofMillis(250))  // default 1 s
            .withFailureThreshold(4)                        // phi, default 10; removal after ~2.3*phi*interval
            .withFailureTimeout(Duration.ofSeconds(3))      // only while < 3 heartbeat samples; default 10 s
            .build())
        .withShutdownHook(false);
    properties.forEach(b::withProperty);    // e.g. grpc port; peers see it in Member.properties()
    if (raftMembers.contains(memberId)) {
      b.withManagementGroup(raftGroup("system", raftMembers, dataDir))
          .withPartitionGroups(raftGroup("raft", raftMembers, dataDir));
    } // else no groups: start() fetches both group configs from the Raft members
    atomix = b.build();
    if (listener != null) {
      atomix.getMembershipService().addListener(listener); // before start(): no MEMBER_ADDED missed
    }
    atomix.start().get(90, TimeUnit.SECONDS);
  }

  private static ManagedPartitionGroup raftGroup(String name, Set<String> members, Path dataDir) {
    return RaftPartitionGroup.builder(name).withNumPartitions(1).withPartitionSize(members.size())
        .withMembers(members).withStorageLevel(StorageLevel.DISK)
        .withDataDirectory(dataDir.resolve(name).toFile()).build();
  }

  public Atomix atomix() { return atomix; }

  public Set<String> liveMembers() {
    return atomix.getMembershipService().getMembers().stream().filter(m -> m.isActive() && m.isReachable())
        .map(m -> m.id().id()).collect(Collectors.toCollection(TreeSet::new));
  }

  @Override public void close() throws Exception { atomix.stop().get(30, TimeUnit.SECONDS); }
}
