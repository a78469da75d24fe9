package io.simdex.server;

import java.util.Collection;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What one running pull must not copy: the keys of its partitions that this node deleted, or
 * rebound, since the pull began (see {@link ActivePulls}). Lives as long as the pull. A
 * mirroring pull also watches the keys it may remove ({@link PartitionMirror}): an add of one
 * here since then is recorded too, and the key is kept.
 */
final class PullTombstones {
    /** A bucket entry removed here. */
    record BucketEntry(String collection, long generation, int table, long fp) {
    }

    /** An id unbound or rebound here: its copied binding and short texts are stale. */
    record Id(String collection, String id) {
    }

    /** A (fingerprint, id) pair detached here. */
    record Attachment(String collection, long generation, long fp, String id) {
    }

    /** A URL job dropped here: every copied entry of it predates the drop. */
    record UrlJob(String job) {
    }

    private final PartitionSet partitions;
    private final Set<Object> keys = ConcurrentHashMap.newKeySet();
    /** Keys a mirroring pull may remove here: an add of one here is recorded too (see {@link ActivePulls#adding}). */
    private final Set<Object> watched = ConcurrentHashMap.newKeySet();
    /** Collection -> the oldest generation this node kept when it expired older ones. */
    private final ConcurrentHashMap<String, Long> expiredBefore = new ConcurrentHashMap<>();

    PullTombstones(PartitionSet partitions) {
        this.partitions = partitions;
    }

    PartitionSet partitions() {
        return partitions;
    }

    boolean covers(int partition) {
        return partitions.contains(partition);
    }

    void add(Object key) {
        keys.add(key);
    }

    /** From now on, an add here of one of {@code keys} is recorded like a delete; the caller holds every partition lock. */
    void watch(Collection<?> keys) {
        watched.addAll(keys);
    }

    boolean watches(Object key) {
        return watched.contains(key);
    }

    boolean isWatching() {
        return !watched.isEmpty();
    }

    boolean contains(Object key) {
        return keys.contains(key);
    }

    /** Whether nothing was deleted or rebound here during the pull (the usual case): then no copied record needs a key made to check. */
    boolean isEmpty() {
        return keys.isEmpty();
    }

    void expired(String collection, long minGeneration) {
        expiredBefore.merge(collection, minGeneration, Math::max);
    }

    /** Whether this node expired {@code generation} of {@code collection} during the pull. */
    boolean isExpired(String collection, long generation) {
        if (expiredBefore.isEmpty()) {
            return false; // checked for every copied record: no expiry, no key hashed
        }
        Long min = expiredBefore.get(collection);
        return min != null && generation < min;
    }
}
