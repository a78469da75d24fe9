package io.simdex.server;

import com.google.protobuf.ByteString;
import io.simdex.proto.v1.ExportChunk;
import io.simdex.server.store.CollectionStore;
import io.simdex.server.store.UrlSeenSet;

import java.util.Map;
import java.util.function.Consumer;

/**
 * Streams every record of a {@link PartitionSet} a node holds, as {@link ExportChunk}s of at most
 * {@link #MAX_RECORDS} records and about {@link #MAX_BYTES} bytes: for each collection (opened
 * since the process started or not) and each generation, its bucket entries, id bindings,
 * fp -> id pairs, content hashes and short texts; then each URL job's seen-set entries.
 *
 * <p>Each map is read in one pass for the whole set, membership being a bit test per key;
 * buckets are read by key instead, one lookup for each of the set's (table, block) buckets.
 * Within a generation bindings come before short texts, because applying a binding drops the
 * id's texts. A record changed while the export runs may or may not be in it: the puller's
 * tombstones ({@link ActivePulls}) keep deletes made meanwhile at the receiver.
 */
final class PartitionExport {
    static final int MAX_RECORDS = 4096;
    static final int MAX_BYTES = 1 << 20;

    private final PartitionSet partitions;
    private final Consumer<ExportChunk> sink;
    private ExportChunk header;
    private ExportChunk.Builder chunk;
    private int records;
    private int bytes;
    private long total;

    private PartitionExport(PartitionSet partitions, Consumer<ExportChunk> sink) {
        this.partitions = partitions;
        this.sink = sink;
    }

    /** Passes every chunk of {@code node}'s records in {@code partitions} to {@code sink}; returns the record count. */
    static long run(ShardNode node, PartitionSet partitions, Consumer<ExportChunk> sink) {
        PartitionExport export = new PartitionExport(partitions, sink);
        for (String collection : node.collectionNames()) {
            for (Map.Entry<Long, CollectionStore> e : node.collection(collection).from(Long.MIN_VALUE)) {
                export.generation(collection, e.getKey(), e.getValue());
            }
        }
        for (String job : node.urlJobNames()) {
            export.urls(job, node.urlJob(job));
        }
        return export.total;
    }

    private void generation(String collection, long generation, CollectionStore store) {
        start(ExportChunk.newBuilder().setCollection(collection).setGeneration(generation).build());
        partitions.forEachBucket((table, block) -> {
            for (long fp : store.buckets().fingerprints(table, block)) {
                chunk.addBucketTables(table).addBucketFingerprints(fp);
                added(12);
            }
        });
        store.docs().forEachBinding((id, fp) -> {
            if (partitions.containsId(id)) {
                chunk.addIds(id).addIdFingerprints(fp);
                added(id.length() + 8);
            }
        });
        store.docs().forEachAttachment((id, fp) -> {
            if (partitions.containsFingerprint(fp)) {
                chunk.addAttachFingerprints(fp).addAttachIds(id);
                added(id.length() + 8);
            }
        });
        store.contents().forEach((hash, fp) -> {
            if (partitions.containsContentHash(hash)) {
                chunk.addContentHashes(ByteString.copyFrom(hash)).addContentFingerprints(fp);
                added(hash.length + 8);
            }
        });
        store.texts().forEach((id, text) -> {
            if (partitions.containsId(id)) {
                chunk.addTextIds(id).addTexts(text);
                added(id.length() + text.length());
            }
        });
        flush();
    }

    private void urls(String job, UrlSeenSet set) {
        start(ExportChunk.newBuilder().setUrlJob(job).build());
        set.forEach((hash, expiresAt) -> {
            if (partitions.containsUrlHash(hash)) {
                chunk.addUrlHashes(ByteString.copyFrom(hash)).addUrlExpires(expiresAt);
                added(hash.length + 8);
            }
        });
        flush();
    }

    private void start(ExportChunk header) {
        this.header = header;
        chunk = header.toBuilder();
    }

    /** Counts one record of about {@code recordBytes} bytes in the chunk, sending the chunk when full. */
    private void added(int recordBytes) {
        records++;
        bytes += recordBytes;
        total++;
        if (records >= MAX_RECORDS || bytes >= MAX_BYTES) {
            flush();
        }
    }

    private void flush() {
        if (records > 0) {
            sink.accept(chunk.build());
            chunk = header.toBuilder();
            records = 0;
            bytes = 0;
        }
    }
}
