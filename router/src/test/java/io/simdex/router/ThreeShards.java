package io.simdex.router;

import io.simdex.router.index.FanoutOnly;
import io.simdex.router.index.IndexRouter;
import io.simdex.router.shard.LocalShardClient;
import io.simdex.router.shard.Placement;
import io.simdex.router.shard.ShardClient;
import io.simdex.server.ShardNode;
import io.simdex.server.store.StoreSizing;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** An index router over three in-process shard nodes sized for 50,000 documents. */
final class ThreeShards {
    private ThreeShards() {
    }

    /**
     * The router, its nodes put in {@code nodes} (cleared first); {@code fanout}: queried through
     * the fan-out, as remote shards are, instead of in place.
     */
    static IndexRouter router(Path dir, boolean fanout, List<ShardNode> nodes) {
        List<ShardClient> shards = new ArrayList<>();
        nodes.clear();
        for (int i = 0; i < 3; i++) {
            ShardNode node = new ShardNode(dir.resolve((fanout ? "f" : "s") + i), c -> StoreSizing.forShare(50_000, 3, 8));
            nodes.add(node);
            shards.add(fanout ? new FanoutOnly(node) : new LocalShardClient(node));
        }
        return new IndexRouter(shards, Placement.roundRobin(3));
    }
}
