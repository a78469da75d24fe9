package io.simdex.router.cluster;

import io.simdex.router.config.ConfigSchema;
import io.simdex.router.config.Setting;
import io.simdex.router.config.Settings;
import io.simdex.router.index.IndexRouter;
import io.simdex.server.Durability;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

/**
 * A node's or router's cluster settings, as in its Java properties file:
 * <pre>
 * id=node-1                  this member's id (unique in the cluster)
 * host=10.0.0.1              address it listens on and others reach it at
 * port=7511                  gRPC: the shard service (node) or the public API (router)
 * atomix.port=7611           Atomix membership and Raft (TCP and UDP)
 * data=/var/lib/simdex       data directory
 * seeds=node-1@10.0.0.1:7611,node-2@10.0.0.2:7611,node-3@10.0.0.3:7611
 * raft=node-1,node-2,node-3  founding nodes: the Raft group and the first placement
 * replication=3              R (used when the first map is made); default 3, or the number of founders if fewer
 * write.quorum=2             W, default a majority of R (R=3: 2, so one node down stops neither reads nor writes)
 * expected=1000000           documents a new collection is sized for in the cluster (a node lays out its R / N share)
 * hedge.millis=0             routers: ask a second replica when the first has not answered a read by then (0: never)
 * handler.threads=0          routers: gRPC handler threads (0: unbounded, as handlers wait on the nodes; see HandlerThreads)
 * clock.skew.millis=5000     routers: how far apart the nodes' clocks may be before time-dependent requests are refused (see ClusterClock)
 * dedup.lease.millis=30000   routers: how long a Dedup's bucket locks last, so how long a router that dies blocks Dedups near its documents
 * durability=process         nodes: when a write is acknowledged, process or fsync (see Durability)
 * metrics.port=9411          Prometheus metrics at http://host:PORT/metrics (0: a free port; absent: none)
 * tls.cert, tls.key, tls.cluster.ca, tls.client.ca, auth.file, insecure: see ClusterSecurity
 * </pre>
 * Each key can also come from the environment or a flag (see {@link Settings}).
 */
public record ClusterConfig(String id, String host, int port, int atomixPort, Path data, List<Seed> seeds, Set<String> raft,
        int replication, int writeQuorum, long expected, long hedgeMillis, int handlerThreads, long clockSkewMillis,
        int dedupLeaseMillis, Durability durability, int metricsPort, ClusterSecurity security) {
    /** {@link #metricsPort} when the process serves no metrics. */
    public static final int NO_METRICS = -1;
    /**
     * {@code clock.skew.millis} when not given: far above what NTP keeps hosts to (milliseconds),
     * far below a generation (a minute or more by default), so it flags a host whose time is not
     * synchronised without refusing one that merely jitters.
     */
    public static final long DEFAULT_CLOCK_SKEW_MILLIS = 5_000;

    /** A founding member's Atomix address: {@code id@host:port}. */
    public record Seed(String id, String host, int port) {
        static Seed parse(String s) {
            int at = s.indexOf('@');
            int colon = s.lastIndexOf(':');
            try {
                if (at > 0 && colon > at) {
                    return new Seed(s.substring(0, at), s.substring(at + 1, colon), Integer.parseInt(s.substring(colon + 1)));
                }
            } catch (NumberFormatException badPort) {
                // reported below
            }
            throw new IllegalArgumentException("seed '" + s + "' is not id@host:port");
        }
    }

    /**
     * A member id as given, if it is 1-100 letters, digits, '.', '_' or '-': ids are keys of the
     * Raft maps (where {@code MissedWrites} keeps entries of its own beside them, under a '/') and
     * labels of metrics.
     */
    static String memberId(String id) {
        if (!id.matches("[A-Za-z0-9._-]{1,100}")) {
            throw new IllegalArgumentException("id '" + id + "' must be 1-100 letters, digits, '.', '_' or '-'");
        }
        return id;
    }

    /** Reads {@code file} alone (no environment, no flags); a missing required key, a bad value or an unknown key is an IllegalArgumentException naming it. */
    public static ClusterConfig load(Path file) throws IOException {
        return of(Settings.resolve(ConfigSchema.CLUSTER, file, Map.of(), List.of()));
    }

    static ClusterConfig of(Properties p, String source) {
        return of(Settings.of(ConfigSchema.CLUSTER, p, source));
    }

    /** The settings of a node or router, resolved from its flags, environment, file and defaults. */
    public static ClusterConfig of(Settings s) {
        Set<String> raft = new LinkedHashSet<>();
        for (String id : s.string("raft").split(",")) {
            if (!id.isBlank()) {
                raft.add(id.trim());
            }
        }
        int replication = (int) s.number("replication", 1, 1000, defaultReplication(raft.size()));
        Setting w = s.get("write.quorum");
        int quorum = w.isSet() ? (int) s.number("write.quorum", 1, replication, 0) : PartitionMap.majority(replication);
        s.required("seeds");
        List<Seed> seeds = s.get("seeds").parse(v -> Arrays.stream(v.split(",")).map(String::trim).filter(x -> !x.isEmpty())
                .map(Seed::parse).toList());
        s.required("port");
        s.required("atomix.port");
        s.required("id");
        return new ClusterConfig(s.get("id").parse(ClusterConfig::memberId), s.string("host"), s.port("port", 0), s.port("atomix.port", 0),
                Path.of(s.required("data")), seeds, raft, replication, quorum, s.number("expected", 1, Long.MAX_VALUE, 0),
                s.number("hedge.millis", 0, Long.MAX_VALUE, 0), (int) s.number("handler.threads", 0, 100_000, 0),
                s.number("clock.skew.millis", 1, 3_600_000, DEFAULT_CLOCK_SKEW_MILLIS), dedupLeaseMillis(s),
                s.get("durability").parse(Durability::parse), s.port("metrics.port", NO_METRICS), ClusterSecurity.of(s));
    }

    /** {@code dedup.lease.millis} of a router's settings: {@link IndexRouter#MIN_DEDUP_LEASE_MILLIS} to an hour. */
    public static int dedupLeaseMillis(Settings s) {
        return (int) s.number("dedup.lease.millis", IndexRouter.MIN_DEDUP_LEASE_MILLIS, 3_600_000, IndexRouter.DEFAULT_DEDUP_LEASE_MILLIS);
    }

    /**
     * R when the settings give none: 3, so that with the default W (a majority, 2) one node down
     * stops neither reads nor writes and an acknowledged write is on two hosts; fewer when fewer
     * nodes found the cluster, since R cannot exceed the nodes. Routers, which read R from the
     * map, have no founders listed and get 3.
     */
    static int defaultReplication(int founders) {
        return founders == 0 ? 3 : Math.min(3, founders);
    }

    public String address() {
        return host + ":" + port;
    }
}
