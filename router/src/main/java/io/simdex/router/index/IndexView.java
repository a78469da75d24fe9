package io.simdex.router.index;


/**
 * Where a request finds the index: one fixed {@link IndexRouter} on the embedded default and
 * with static shards; in a cluster, the one built from the newest partition map.
 */
public interface IndexView {
    IndexRouter current();

    /**
     * A shard refused a call because this router's partition map is older than the node's:
     * return once a newer map is in use.
     */
    default void refresh() {
    }

    static IndexView fixed(IndexRouter index) {
        return () -> index;
    }
}
