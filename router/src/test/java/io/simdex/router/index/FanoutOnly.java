package io.simdex.router.index;

import io.simdex.router.shard.LocalShardClient;
import io.simdex.server.ShardNode;

/** A local shard that calls its node in the caller's thread but does not say so: the router fans out over it. */
public final class FanoutOnly extends LocalShardClient {
    public FanoutOnly(ShardNode node) {
        super(node);
    }

    @Override
    public ShardNode inCallingThread() {
        return null;
    }
}
