package io.simdex.ops;

import io.simdex.ops.cluster.ClusterNode;
import io.simdex.router.cluster.ClusterConfig;
import io.simdex.router.config.ConfigSchema;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

import java.util.concurrent.Callable;

/** One shard node of a cluster: replicated partitions, Atomix membership, the Raft group if founding. */
@Command(name = "node", mixinStandardHelpOptions = true,
        description = {"Run a cluster shard node (settings in a properties file, --config; see docs/CLUSTER.md).",
                "Settings: flag (--set KEY=VALUE) > environment (SIMDEX_KEY) > --config FILE > default."})
final class NodeCommand implements Callable<Integer> {
    @Mixin
    ConfigOptions config;

    @Mixin
    MetricsOption metrics;

    @Override
    public Integer call() throws Exception {
        ConfigOptions.Flags flags = new ConfigOptions.Flags();
        metrics.addTo(flags);
        ClusterConfig c = ClusterConfig.of(config.resolve(ConfigSchema.CLUSTER, flags.list()));
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
