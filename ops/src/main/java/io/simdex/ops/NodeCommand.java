package io.simdex.ops;

import io.simdex.ops.cluster.ClusterNode;
import io.simdex.router.cluster.ClusterConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.concurrent.Callable;

/** One shard node of a cluster: replicated partitions, Atomix membership, the Raft group if founding. */
@Command(name = "node", mixinStandardHelpOptions = true,
        description = "Run a cluster shard node (settings in a properties file; see ops/docs/CLUSTER.md).")
final class NodeCommand implements Callable<Integer> {
    @Option(names = "--config", required = true,
            description = "Node settings: id, host, port, atomix.port, data, seeds, raft, replication, write.quorum, expected, metrics.port.")
    Path config;

    @Mixin
    MetricsOption metrics;

    @Override
    public Integer call() throws Exception {
        ClusterConfig c = ClusterConfig.load(config);
        c = metrics.given() ? c.withMetricsPort(metrics.port()) : c;
        ClusterNode node = ClusterNode.start(c);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                node.close();
            } catch (Exception e) {
                System.err.println("simdex node: shutdown: " + e);
            }
        }, "node-shutdown"));
        MetricsOption.announce("simdex node " + c.id(), c.host(), node.metrics());
        System.err.printf("simdex node %s: data in %s, listening on %s:%d%n", c.id(), c.data().toAbsolutePath(), c.host(), node.port());
        node.awaitTermination();
        return 0;
    }
}
