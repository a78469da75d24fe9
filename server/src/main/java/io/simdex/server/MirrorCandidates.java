package io.simdex.server;

import io.simdex.core.Hashing;
import io.simdex.fingerprint.BlockTables;
import io.simdex.proto.v1.ExportChunk;
import io.simdex.server.store.CollectionStore;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * What this node holds of a pull's partitions that the source's export did not send: the
 * records a mirroring pull may remove ({@link PartitionMirror}). It sees each chunk after it is
 * applied here, so a record the source sent is here too, and compares:
 * <ul>
 *   <li>bucket entries bucket by bucket, as the export sends them (table, then block, ascending,
 *       each bucket's entries together): a bucket is compared with this node's once the next
 *       begins, and a bucket the export skipped had none at the source. So they cost the memory
 *       of one bucket, not of every entry;</li>
 *   <li>ids (per collection) and fingerprint-id pairs (per generation) by 64-bit hashes, 8 bytes
 *       a record, compared once the export has ended. Two records of one hash count as both
 *       sent: a collision keeps a record, it never removes one.</li>
 * </ul>
 * Content hashes, short texts and URL entries are not compared: a content hash a deleted
 * document left behind still names that text's fingerprint (never wrong, only unused), a text
 * goes with its id's binding, and URL entries expire.
 */
final class MirrorCandidates implements Consumer<ExportChunk> {
    private static final int BUCKETS = BlockTables.TABLES * BlockTables.KEYS_PER_TABLE;
    /** Candidates kept at most (about 100 bytes of heap each): past it the pull removes nothing. */
    static final int MAX = 2_000_000;

    private final ShardNode node;
    private final PartitionSet partitions;
    private final PullTombstones tombstones;
    private final Set<Object> found = new HashSet<>();
    private boolean overflowed;

    /** Collection -> hashes of the ids the export bound. */
    private final Map<String, Hashes> ids = new HashMap<>();
    /** (collection, generation) -> hashes of the (fingerprint, id) pairs the export sent. */
    private final Map<Section, Hashes> attachments = new HashMap<>();
    /** Sections whose bucket entries were compared. */
    private final Set<Section> bucketsDone = new HashSet<>();

    private Section section;
    /** The bucket being received (-1: none), its entries, and the first bucket not compared yet. */
    private int bucket = -1;
    private long[] bucketFps = new long[16];
    private int bucketSize;
    private int nextBucket;

    private record Section(String collection, long generation) {
    }

    MirrorCandidates(ShardNode node, PartitionSet partitions, PullTombstones tombstones) {
        this.node = node;
        this.partitions = partitions;
        this.tombstones = tombstones;
    }

    @Override
    public void accept(ExportChunk c) {
        if (!c.getUrlJob().isEmpty()) {
            return;
        }
        Section s = new Section(c.getCollection(), c.getGeneration());
        if (!s.equals(section)) {
            endBuckets();
            section = s;
            nextBucket = 0;
        }
        for (int i = 0; i < c.getBucketTablesCount(); i++) {
            int table = c.getBucketTables(i);
            long fp = c.getBucketFingerprints(i);
            int b = table * BlockTables.KEYS_PER_TABLE + BlockTables.block(fp, table);
            if (b != bucket) {
                endBucket();
                absentFrom(nextBucket, b);
                bucket = b;
            }
            if (bucketSize == bucketFps.length) {
                bucketFps = Arrays.copyOf(bucketFps, bucketSize * 2);
            }
            bucketFps[bucketSize++] = fp;
        }
        if (c.getIdsCount() + c.getAttachFingerprintsCount() + c.getContentHashesCount() + c.getTextIdsCount() > 0) {
            endBuckets(); // the export sends a generation's bucket entries before its other records
        }
        Hashes sentIds = ids.computeIfAbsent(s.collection(), k -> new Hashes());
        for (String id : c.getIdsList()) {
            sentIds.add(Hashing.hash(id));
        }
        Hashes pairs = attachments.computeIfAbsent(s, k -> new Hashes());
        for (int i = 0; i < c.getAttachFingerprintsCount(); i++) {
            pairs.add(pairHash(c.getAttachFingerprints(i), c.getAttachIds(i)));
        }
    }

    /**
     * Once the export has ended: every record of the partitions held here and not sent, that no
     * change here since the pull began covers. Keys are {@link PullTombstones} records.
     */
    List<Object> candidates() {
        endBuckets();
        ids.values().forEach(Hashes::seal);
        attachments.values().forEach(Hashes::seal);
        for (String collection : node.collectionNames()) {
            Hashes sentIds = ids.getOrDefault(collection, Hashes.NONE);
            for (Map.Entry<Long, CollectionStore> e : node.collection(collection).from(Long.MIN_VALUE)) {
                Section s = new Section(collection, e.getKey());
                if (!bucketsDone.contains(s)) {
                    section = s;
                    absentFrom(0, BUCKETS);
                }
                Hashes pairs = attachments.getOrDefault(s, Hashes.NONE);
                e.getValue().docs().forEachBinding((id, fp) -> {
                    if (partitions.containsId(id) && !sentIds.contains(Hashing.hash(id))) {
                        found(new PullTombstones.Id(collection, id));
                    }
                });
                e.getValue().docs().forEachAttachment((id, fp) -> {
                    if (partitions.containsFingerprint(fp) && !pairs.contains(pairHash(fp, id))) {
                        found(new PullTombstones.Attachment(collection, s.generation(), fp, id));
                    }
                });
            }
        }
        return new ArrayList<>(found);
    }

    private void endBuckets() {
        if (section != null && !bucketsDone.contains(section)) {
            endBucket();
            absentFrom(nextBucket, BUCKETS);
            bucketsDone.add(section);
        }
    }

    /** Compares the bucket received last with this node's. */
    private void endBucket() {
        if (bucket < 0) {
            return;
        }
        long[] sent = Arrays.copyOf(bucketFps, bucketSize);
        Arrays.sort(sent);
        compare(bucket, sent);
        nextBucket = bucket + 1;
        bucket = -1;
        bucketSize = 0;
    }

    /** Buckets [from, to) of the section's partitions: the export sent none of their entries. */
    private void absentFrom(int from, int to) {
        for (int b = from; b < to; b++) {
            int table = b / BlockTables.KEYS_PER_TABLE;
            if (partitions.containsBucket(table, b % BlockTables.KEYS_PER_TABLE)) {
                compare(b, new long[0]);
            }
        }
        nextBucket = Math.max(nextBucket, to);
    }

    private void compare(int b, long[] sortedSent) {
        CollectionStore store = node.collection(section.collection()).existing(section.generation());
        if (store == null) {
            return;
        }
        int table = b / BlockTables.KEYS_PER_TABLE;
        for (long fp : store.buckets().fingerprints(table, b % BlockTables.KEYS_PER_TABLE)) {
            if (Arrays.binarySearch(sortedSent, fp) < 0) {
                found(new PullTombstones.BucketEntry(section.collection(), section.generation(), table, fp));
            }
        }
    }

    private void found(Object key) {
        if (found.size() >= MAX) {
            overflowed = true;
        } else if (tombstones.isEmpty() || !tombstones.contains(key)) {
            found.add(key);
        }
    }

    /** Whether more than {@link #MAX} records were missing: {@link #candidates} holds only some of them. */
    boolean overflowed() {
        return overflowed;
    }

    private static long pairHash(long fp, String id) {
        return Hashing.mix64(fp ^ Hashing.hash(id) * 0x9E3779B97F4A7C15L);
    }

    /** A growing array of 64-bit hashes, sorted once complete. */
    private static final class Hashes {
        static final Hashes NONE = new Hashes();

        private long[] values = new long[64];
        private int size;

        void add(long h) {
            if (size == values.length) {
                values = Arrays.copyOf(values, size * 2);
            }
            values[size++] = h;
        }

        void seal() {
            Arrays.sort(values, 0, size);
        }

        boolean contains(long h) {
            return Arrays.binarySearch(values, 0, size, h) >= 0;
        }
    }
}
