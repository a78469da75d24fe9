package io.simdex.router.config;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The keys one kind of process reads, in the order {@code config check} lists them, each with its
 * default as text ("" for none: the key is absent unless set, and the process says what absent
 * means). Node and cluster router read the same keys; the embedded default, a fixed shard and a
 * router in front of fixed shards each read their own. A router reads {@link #FIXED_ROUTER}'s keys
 * when {@code shard.addresses} is set (by {@code --shard}, the environment or its file), else {@link #CLUSTER}'s.
 *
 * @param process what reads these keys, for messages: {@code node/router}, {@code embedded}, {@code shard} or {@code router --shard}
 */
public record ConfigSchema(String process, Map<String, String> defaults) {
    /** A node's or router's keys (see ClusterConfig and ClusterSecurity). */
    public static final ConfigSchema CLUSTER = new ConfigSchema("node/router", ordered(
            "id", "", "host", "127.0.0.1", "port", "", "atomix.port", "", "data", "", "seeds", "", "raft", "",
            "replication", "", "write.quorum", "", "expected", "1000000", "hedge.millis", "0", "handler.threads", "0",
            "clock.skew.millis", "5000", "dedup.lease.millis", "30000",
            "durability", "process", "metrics.port", "",
            "tls.cert", "", "tls.key", "", "tls.cluster.ca", "", "tls.client.ca", "", "auth.file", "", "insecure", "false"));

    /** The embedded default's keys: router and shards in one process on one port. */
    public static final ConfigSchema EMBEDDED = new ConfigSchema("embedded", ordered(
            "host", "127.0.0.1", "port", "7411", "data", "data", "shards", "4", "expected", "1000000", "handler.threads", "",
            "inline.reads", "true", "durability", "process", "metrics.port", "",
            "tls.cert", "", "tls.key", "", "tls.client.ca", "", "auth.file", "", "insecure", "false"));

    /** A shard process outside a cluster, serving the shard protocol to fixed-shard routers. */
    public static final ConfigSchema SHARD = new ConfigSchema("shard", ordered(
            "data", "", "host", "127.0.0.1", "port", "", "shards", "4", "expected", "1000000", "durability", "process", "metrics.port", "",
            "tls.cert", "", "tls.key", "", "tls.client.ca", "", "insecure", "false"));

    /** A router in front of fixed shard processes; {@code tls.shard.ca}: reach them over mutual TLS with {@code tls.cert}. */
    public static final ConfigSchema FIXED_ROUTER = new ConfigSchema("router --shard", ordered(
            "shard.addresses", "", "host", "127.0.0.1", "port", "7411", "data", "data/router", "handler.threads", "0",
            "dedup.lease.millis", "30000", "metrics.port", "",
            "tls.cert", "", "tls.key", "", "tls.client.ca", "", "tls.shard.ca", "", "auth.file", "", "insecure", "false"));

    private static final List<ConfigSchema> ALL = List.of(CLUSTER, EMBEDDED, SHARD, FIXED_ROUTER);

    public Set<String> keys() {
        return defaults.keySet();
    }

    public boolean knows(String key) {
        return defaults.containsKey(key);
    }

    /** The default of {@code key}, "" when it has none. */
    public String defaultOf(String key) {
        return defaults.getOrDefault(key, "");
    }

    /** Whether some process reads {@code key}: a key of another process is not a typo. */
    static boolean anyKnows(String key) {
        return ALL.stream().anyMatch(s -> s.knows(key));
    }

    private static Map<String, String> ordered(String... keyThenDefault) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < keyThenDefault.length; i += 2) {
            m.put(keyThenDefault[i], keyThenDefault[i + 1]);
        }
        return Collections.unmodifiableMap(m);
    }
}
