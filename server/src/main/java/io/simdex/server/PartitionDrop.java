package io.simdex.server;

import io.simdex.server.store.CollectionStore;

import java.util.Map;

/**
 * Deletes every record of a {@link PartitionSet} from a node, once the partitions have moved
 * away: in every collection (opened since the process started or not), generation and URL job,
 * one pass over each map for the whole set.
 */
final class PartitionDrop {
    private PartitionDrop() {
    }

    /** Returns how many records were removed (bucket entries, bindings, fp -> id pairs, content, texts, URLs). */
    static long run(ShardNode node, PartitionSet partitions) {
        long removed = 0;
        for (String collection : node.collectionNames()) {
            for (Map.Entry<Long, CollectionStore> e : node.collection(collection).from(Long.MIN_VALUE)) {
                removed += drop(e.getValue(), partitions);
            }
        }
        for (String job : node.urlJobNames()) {
            removed += node.urlJob(job).removeIf(partitions::containsUrlHash);
        }
        return removed;
    }

    private static long drop(CollectionStore store, PartitionSet partitions) {
        long[] removed = {0};
        partitions.forEachBucket((table, block) -> removed[0] += store.buckets().clear(table, block));
        removed[0] += store.docs().unbindIf(partitions::containsId);
        removed[0] += store.docs().detachIf(partitions::containsFingerprint);
        removed[0] += store.contents().removeIf((hash, fp) -> partitions.containsContentHash(hash));
        removed[0] += store.texts().removeIf((id, text) -> partitions.containsId(id));
        return removed[0];
    }
}
