package io.simdex.server;

import io.simdex.core.Names;
import io.simdex.core.Partitions;
import io.simdex.fingerprint.BlockTables;
import io.simdex.proto.v1.ExportChunk;
import io.simdex.server.store.CollectionStore;

import java.util.function.Consumer;

/**
 * Applies a peer's {@link ExportChunk}s to this node through the ordinary, idempotent write
 * paths: bucket adds that check presence, binds, attaches, content and text puts, URL adds that
 * keep the later expiry. Each record is checked against its pull's tombstones under its
 * partition's lock ({@link ActivePulls}) and skipped when this node deleted it meanwhile.
 */
final class ChunkApplier {
    private static final int HASH_BYTES = 16;

    private final ShardNode node;
    private final PullTombstones tombstones;

    ChunkApplier(ShardNode node, PullTombstones tombstones) {
        this.node = node;
        this.tombstones = tombstones;
    }

    /**
     * Applies one chunk; returns how many records it carried, applied or skipped for a tombstone.
     * IllegalArgumentException, before writing anything, for a malformed chunk or a record outside
     * the pull's partitions.
     */
    long apply(ExportChunk c) {
        long records = ChunkCheck.check(c, tombstones.partitions());
        if (!c.getUrlJob().isEmpty()) {
            applyUrls(c);
            return records;
        }
        String coll = c.getCollection();
        long g = c.getGeneration();
        // An export sends each bucket's entries together: each run of one bucket is added at once.
        for (int i = 0, n = c.getBucketTablesCount(); i < n; ) {
            int table = c.getBucketTables(i);
            int block = BlockTables.block(c.getBucketFingerprints(i), table);
            int end = i + 1;
            while (end < n && c.getBucketTables(end) == table && BlockTables.block(c.getBucketFingerprints(end), table) == block) {
                end++;
            }
            addBucketRun(c, i, end, table, block);
            i = end;
        }
        for (int i = 0; i < c.getIdsCount(); i++) {
            String id = c.getIds(i);
            long fp = c.getIdFingerprints(i);
            write(Partitions.ofId(id), new PullTombstones.Id(coll, id), coll, g, s -> node.bindCopied(coll, g, id, fp));
        }
        for (int i = 0; i < c.getAttachFingerprintsCount(); i++) {
            long fp = c.getAttachFingerprints(i);
            String id = c.getAttachIds(i);
            write(Partitions.ofFingerprint(fp), new PullTombstones.Attachment(coll, g, fp, id), coll, g, s -> s.docs().attach(fp, id));
        }
        for (int i = 0; i < c.getContentHashesCount(); i++) {
            byte[] hash = c.getContentHashes(i).toByteArray();
            long fp = c.getContentFingerprints(i);
            // No delete path exists for content: only an expiry can make a copy stale.
            write(Partitions.ofContentHash(hash), null, coll, g, s -> s.contents().put(hash, fp));
        }
        for (int i = 0; i < c.getTextIdsCount(); i++) {
            String id = c.getTextIds(i);
            String text = c.getTexts(i);
            write(Partitions.ofId(id), new PullTombstones.Id(coll, id), coll, g, s -> s.texts().put(id, text));
        }
        return records;
    }

    /** Adds the chunk's bucket entries {@code from..to}, all of bucket (table, block), that no tombstone covers and the bucket lacks. */
    private void addBucketRun(ExportChunk c, int from, int to, int table, int block) {
        String coll = c.getCollection();
        long g = c.getGeneration();
        try (ActivePulls.Stripe s = node.pulls().lock(Partitions.ofBucket(table, block))) {
            if (tombstones.isExpired(coll, g)) {
                return;
            }
            long[] fps = new long[to - from];
            int n = 0;
            boolean none = tombstones.isEmpty(); // read under the lock that every tombstone of this partition is added under
            for (int i = from; i < to; i++) {
                long fp = c.getBucketFingerprints(i);
                if (none || !tombstones.contains(new PullTombstones.BucketEntry(coll, g, table, fp))) {
                    fps[n++] = fp;
                }
            }
            node.collection(coll).writable(g).buckets().addAbsent(table, fps, 0, n);
        }
    }

    /** Writes one record of {@code partition} into the generation, unless a tombstone covers it. */
    private void write(int partition, Object key, String collection, long generation, Consumer<CollectionStore> write) {
        try (ActivePulls.Stripe s = node.pulls().lock(partition)) {
            if (!tombstones.isExpired(collection, generation) && (key == null || tombstones.isEmpty() || !tombstones.contains(key))) {
                // Looked up under the lock: an expiry (which takes every lock) may have closed it.
                write.accept(node.collection(collection).writable(generation));
            }
        }
    }

    private void applyUrls(ExportChunk c) {
        PullTombstones.UrlJob job = new PullTombstones.UrlJob(c.getUrlJob());
        for (int i = 0; i < c.getUrlHashesCount(); i++) {
            byte[] hash = c.getUrlHashes(i).toByteArray();
            try (ActivePulls.Stripe s = node.pulls().lock(Partitions.ofUrlHash(hash))) {
                if (!tombstones.contains(job)) {
                    node.urlJob(job.job()).addKeepingLater(hash, c.getUrlExpires(i));
                }
            }
        }
    }

    /** The shape checks of a chunk, kept apart from the writes. */
    static final class ChunkCheck {
        private ChunkCheck() {
        }

        /** Returns the chunk's record count; throws IllegalArgumentException naming the first fault. */
        static long check(ExportChunk c, PartitionSet p) {
            boolean urls = !c.getUrlJob().isEmpty();
            if (urls == !c.getCollection().isEmpty()) {
                throw bad("a chunk names exactly one of collection and url_job, not '" + c.getCollection() + "' and '" + c.getUrlJob() + "'");
            }
            String name = urls ? c.getUrlJob() : c.getCollection();
            if (!Names.isValid(name)) {
                throw bad(Names.problem(urls ? "url_job" : "collection", name));
            }
            pair("bucket_tables", c.getBucketTablesCount(), "bucket_fingerprints", c.getBucketFingerprintsCount());
            pair("ids", c.getIdsCount(), "id_fingerprints", c.getIdFingerprintsCount());
            pair("attach_fingerprints", c.getAttachFingerprintsCount(), "attach_ids", c.getAttachIdsCount());
            pair("content_hashes", c.getContentHashesCount(), "content_fingerprints", c.getContentFingerprintsCount());
            pair("text_ids", c.getTextIdsCount(), "texts", c.getTextsCount());
            pair("url_hashes", c.getUrlHashesCount(), "url_expires", c.getUrlExpiresCount());
            int collectionRecords = c.getBucketTablesCount() + c.getIdsCount() + c.getAttachFingerprintsCount()
                    + c.getContentHashesCount() + c.getTextIdsCount();
            if (urls ? collectionRecords > 0 : c.getUrlHashesCount() > 0) {
                throw bad("a chunk carries either collection records or URL entries, not both");
            }
            for (int i = 0; i < c.getBucketTablesCount(); i++) {
                int table = c.getBucketTables(i);
                if (table < 0 || table >= BlockTables.TABLES) {
                    throw bad("bucket table " + Integer.toUnsignedString(table) + " outside 0.." + (BlockTables.TABLES - 1));
                }
                in(p, p.containsBucketOf(table, c.getBucketFingerprints(i)), "bucket entry");
            }
            c.getIdsList().forEach(id -> in(p, p.containsId(id), "binding of " + id));
            c.getAttachFingerprintsList().forEach(fp -> in(p, p.containsFingerprint(fp), "fp -> id pair"));
            c.getTextIdsList().forEach(id -> in(p, p.containsId(id), "text of " + id));
            c.getContentHashesList().forEach(h -> in(p, hash(h.toByteArray(), "content hash") && p.containsContentHash(h.toByteArray()), "content hash"));
            c.getUrlHashesList().forEach(h -> in(p, hash(h.toByteArray(), "URL hash") && p.containsUrlHash(h.toByteArray()), "URL hash"));
            return collectionRecords + c.getUrlHashesCount();
        }

        private static void pair(String a, int aCount, String b, int bCount) {
            if (aCount != bCount) {
                throw bad(aCount + " " + a + " but " + bCount + " " + b);
            }
        }

        private static boolean hash(byte[] h, String what) {
            if (h.length != HASH_BYTES) {
                throw bad(what + " of " + h.length + " bytes, not " + HASH_BYTES);
            }
            return true;
        }

        private static void in(PartitionSet p, boolean inSet, String what) {
            if (!inSet) {
                throw bad(what + " outside the " + p + " pulled");
            }
        }

        private static IllegalArgumentException bad(String message) {
            return new IllegalArgumentException("peer sent a bad export chunk: " + message);
        }
    }
}
