package io.simdex.router.cluster;

import io.simdex.server.Durability;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;

/**
 * A node's or router's cluster settings, from a Java properties file:
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
 * expected=1000000           documents a new collection is sized for on a node
 * hedge.millis=0             routers: ask a second replica when the first has not answered a read by then (0: never)
 * handler.threads=0          routers: gRPC handler threads (0: unbounded, as handlers wait on the nodes; see HandlerThreads)
 * clock.skew.millis=5000     routers: how far apart the nodes' clocks may be before time-dependent requests are refused (see ClusterClock)
 * durability=process         nodes: when a write is acknowledged, process or fsync (see Durability)
 * metrics.port=9411          Prometheus metrics at http://host:PORT/metrics (0: a free port; absent: none)
 * tls.cert, tls.key, tls.cluster.ca, tls.client.ca, auth.file, insecure: see ClusterSecurity
 * </pre>
 */
public record ClusterConfig(String id, String host, int port, int atomixPort, Path data, List<Seed> seeds, Set<String> raft,
        int replication, int writeQuorum, long expected, long hedgeMillis, int handlerThreads, long clockSkewMillis,
        Durability durability, int metricsPort, ClusterSecurity security) {
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
            if (at <= 0 || colon < at) {
                throw new IllegalArgumentException("seed '" + s + "' is not id@host:port");
            }
            return new Seed(s.substring(0, at), s.substring(at + 1, colon), Integer.parseInt(s.substring(colon + 1)));
        }
    }

    /** Reads {@code file}; a missing required key, a bad value or an unknown key is an IllegalArgumentException naming it. */
    public static ClusterConfig load(Path file) throws IOException {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file)) {
            p.load(r);
        }
        ConfigKeys.check(p, Files.readAllLines(file), file.toString());
        return of(p, file.toString());
    }

    static ClusterConfig of(Properties p, String source) {
        ConfigKeys.check(p, List.of(), source);
        String id = required(p, "id", source);
        Set<String> raft = new LinkedHashSet<>();
        for (String s : p.getProperty("raft", "").split(",")) {
            if (!s.isBlank()) {
                raft.add(s.trim());
            }
        }
        String r = p.getProperty("replication", "").trim();
        int replication = r.isEmpty() ? defaultReplication(raft.size()) : Integer.parseInt(r);
        String w = p.getProperty("write.quorum", "").trim();
        int quorum = w.isEmpty() ? PartitionMap.majority(replication) : Integer.parseInt(w);
        if (quorum < 1 || quorum > replication) {
            throw new IllegalArgumentException(source + ": write.quorum must be 1.." + replication + ", was " + quorum);
        }
        List<Seed> seeds = Arrays.stream(required(p, "seeds", source).split(",")).map(String::trim).filter(s -> !s.isEmpty())
                .map(Seed::parse).toList();
        return new ClusterConfig(id, p.getProperty("host", "127.0.0.1").trim(), Integer.parseInt(required(p, "port", source)),
                Integer.parseInt(required(p, "atomix.port", source)), Path.of(required(p, "data", source)), seeds, raft,
                replication, quorum, Long.parseLong(p.getProperty("expected", "1000000").trim()),
                Long.parseLong(p.getProperty("hedge.millis", "0").trim()),
                Integer.parseInt(p.getProperty("handler.threads", "0").trim()), clockSkewMillis(p, source), durability(p, source),
                metricsPort(p, source),
                ClusterSecurity.of(p, source));
    }

    /**
     * R when the file gives none: 3, so that with the default W (a majority, 2) one node down
     * stops neither reads nor writes and an acknowledged write is on two hosts; fewer when fewer
     * nodes found the cluster, since R cannot exceed the nodes. Routers, which read R from the
     * map, have no founders listed and get 3.
     */
    static int defaultReplication(int founders) {
        return founders == 0 ? 3 : Math.min(3, founders);
    }

    private static long clockSkewMillis(Properties p, String source) {
        return number(p, source, "clock.skew.millis", Long.toString(DEFAULT_CLOCK_SKEW_MILLIS), 1, 3_600_000);
    }

    private static int metricsPort(Properties p, String source) {
        String v = p.getProperty("metrics.port", "").trim();
        return v.isEmpty() ? NO_METRICS : (int) number(p, source, "metrics.port", v, 0, 65535);
    }

    /** The key's value, or {@code fallback}, as a number in min..max; an IllegalArgumentException naming the key and value otherwise. */
    private static long number(Properties p, String source, String key, String fallback, long min, long max) {
        String v = p.getProperty(key, fallback).trim();
        try {
            long n = Long.parseLong(v);
            if (n >= min && n <= max) {
                return n;
            }
        } catch (NumberFormatException notANumber) {
            // reported below
        }
        throw new IllegalArgumentException(source + ": " + key + " must be " + min + ".." + max + ", was \"" + v + "\"");
    }

    /** The same settings with metrics on {@code port} ({@link #NO_METRICS}: none), as a flag overrides the file. */
    public ClusterConfig withMetricsPort(int port) {
        return new ClusterConfig(id, host, this.port, atomixPort, data, seeds, raft, replication, writeQuorum, expected, hedgeMillis,
                handlerThreads, clockSkewMillis, durability, port, security);
    }

    private static Durability durability(Properties p, String source) {
        try {
            return Durability.parse(p.getProperty("durability", "process"));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(source + ": " + e.getMessage(), e);
        }
    }

    private static String required(Properties p, String key, String source) {
        String v = p.getProperty(key);
        if (v == null || v.isBlank()) {
            throw new IllegalArgumentException(source + ": '" + key + "' is required");
        }
        return v.trim();
    }

    public String address() {
        return host + ":" + port;
    }
}
