package simdex.cluster;

import io.atomix.core.lock.AtomicLock;
import io.atomix.protocols.raft.MultiRaftProtocol;
import io.atomix.utils.time.Version;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/** java simdex.cluster.Demo id port seeds raftMembers dataDir : exercises the copy-paste classes. */
public final class Demo {
  static void log(String s) {
    System.out.println("@" + System.currentTimeMillis() + " " + s);
  }

  public static void main(String[] a) throws Exception {
    String id = a[0];
    Set<String> raft = new TreeSet<>(Arrays.asList(a[3].split(",")));
    long t0 = System.currentTimeMillis();
    ClusterMembership cm = new ClusterMembership(id, "127.0.0.1", Integer.parseInt(a[1]),
        Arrays.stream(a[2].split(",")).map(ClusterMembership.Seed::parse).collect(Collectors.toList()),
        raft, Path.of(a[4], id), Map.of("grpc", "7" + a[1].substring(1)),
        e -> log("MEMBERSHIP " + e.type() + " " + e.subject().id() + " " + e.subject().properties()));
    log("STARTED in " + (System.currentTimeMillis() - t0) + " ms live=" + cm.liveMembers());

    PartitionMapStore store = new PartitionMapStore(cm.atomix(), Duration.ofSeconds(5), Duration.ofSeconds(5));
    log("CURRENT " + (store.current() == null ? "null" : store.current().epoch()));
    store.watch(m -> log("WATCH epoch=" + m.epoch() + " nodes=" + m.nodes() + " vp4095=" + m.owner(4095, 0)));
    if (raft.contains(id)) {
      store.initializeIfAbsent(PartitionMap.roundRobin(1, new ArrayList<>(raft), 2));
    }

    AtomicLock lock = cm.atomix().atomicLockBuilder("simdex-rebalance-lock")
        .withProtocol(MultiRaftProtocol.builder("raft").withMaxTimeout(Duration.ofSeconds(5)).build())
        .build();
    for (int i = 0; i < 4; i++) {
      Optional<Version> token = lock.tryLock(Duration.ofSeconds(2));
      if (token.isPresent()) {
        try {
          PartitionMap m = store.update(cur -> PartitionMap.roundRobin(cur == null ? 1 : cur.epoch() + 1,
              new ArrayList<>(cm.liveMembers()), 2));
          log("REBALANCED fencing=" + token.get().value() + " -> epoch " + m.epoch());
        } finally {
          lock.unlock();
        }
      }
      Thread.sleep(700);
    }
    Thread.sleep(raft.contains(id) ? 12000 : 4000); // Raft members stay until the late client is done
    try {
      log("FINAL epoch=" + store.current().epoch());
    } finally {
      long s = System.currentTimeMillis();
      cm.close();
      log("CLOSED in " + (System.currentTimeMillis() - s) + " ms");
      System.exit(0); // Atomix threads are non-daemon: without stop()+exit the JVM never ends
    }
  }
}
