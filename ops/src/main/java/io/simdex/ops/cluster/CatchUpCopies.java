package io.simdex.ops.cluster;

import io.simdex.core.Partitions;

import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntPredicate;
import java.util.stream.IntStream;

/**
 * Which peer each of a node's partitions was copied from in one catch-up, and which of those
 * copies were mirrors of a peer in sync (a peer no router reported behind, whose removals were
 * not refused). A Dedup intent whose keys all lie in such partitions can be taken from those
 * peers however the other partitions were copied: a peer in sync holds every intent on the keys
 * it serves. So one partition whose only live peer was itself behind no longer keeps the node
 * from taking the intents of all the others, as when two nodes caught up at once after one
 * network fault.
 */
final class CatchUpCopies {
    private final int[] source = new int[Partitions.COUNT];
    private final Set<Integer> clean = ConcurrentHashMap.newKeySet();

    CatchUpCopies() {
        Arrays.fill(source, -1);
    }

    /** Partitions {@code partitions} are to be copied from peer {@code peer} (its index in the partition map). */
    void assign(int peer, int[] partitions) {
        for (int p : partitions) {
            source[p] = peer;
        }
    }

    /** The copy from {@code peer} ended as a mirror of a peer in sync ({@code mirrored}) or not. */
    void ended(int peer, boolean mirrored) {
        if (mirrored) {
            clean.add(peer);
        }
    }

    /** Whether every peer assigned partitions was mirrored in sync. */
    boolean everyMirrored() {
        return Arrays.stream(source).allMatch(peer -> peer < 0 || clean.contains(peer));
    }

    /** The peers (indices in the partition map) mirrored in sync, ascending. */
    List<Integer> mirroredPeers() {
        return clean.stream().sorted().toList();
    }

    /** Bucket keys of the partitions copied from a peer mirrored in sync. */
    IntPredicate mirroredBucketKeys() {
        boolean[] mirrored = new boolean[Partitions.COUNT];
        IntStream.range(0, Partitions.COUNT).forEach(p -> mirrored[p] = source[p] >= 0 && clean.contains(source[p]));
        return bucketKey -> mirrored[Partitions.ofBucketKey(bucketKey)];
    }
}
