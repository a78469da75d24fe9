package io.simdex.server.store;

import net.openhft.chronicle.map.ChronicleMap;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Everything one shard keeps for one collection, in one directory:
 * {@code geometry.properties}, {@code buckets-G.cm}, {@code overflow-G.cm} once a bucket
 * spills past its base pages and {@code pagesC-G.cm} once a chain grows further
 * ({@link BucketPages}), {@code ids-G.cm},
 * {@code fps-G.cm}, {@code content-G.cm} once the collection records content hashes,
 * {@code texts-G.cm}, {@code sketches-G.cm} and {@code fpsketches-G.cm} once it records short
 * texts or sketches
 * ({@link TextStore}), and {@code .clean} while closed cleanly.
 */
public final class CollectionStore implements Closeable {
    static final int CONTENT_HASH_BYTES = 16;

    private final Path dir;
    private final BucketTable buckets;
    private final DocMaps docs;
    private final GrowingMap<byte[], Long> contents;
    private final TextStore texts;

    private CollectionStore(Path dir, BucketTable buckets, DocMaps docs, GrowingMap<byte[], Long> contents, TextStore texts) {
        this.dir = dir;
        this.buckets = buckets;
        this.docs = docs;
        this.contents = contents;
        this.texts = texts;
    }

    /**
     * Opens the store in {@code dir}, creating it with {@code sizing} if new, recovering it after
     * a crash; {@link NoRoomException} if the process is too near its limits of memory maps or
     * open files to open more ({@link ProcessLimits}).
     */
    public static CollectionStore open(Path dir, StoreSizing sizing) {
        ProcessLimits.requireRoomForStore(dir);
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        boolean fresh = !Files.exists(dir.resolve(TableGeometry.FILE));
        boolean clean = MapFiles.takeCleanMarker(dir, fresh);
        TableGeometry geometry = TableGeometry.loadOrStore(dir, sizing.geometry());
        // What opened is closed if a later part fails (a full disk, say): the next open maps the files again.
        Deque<Closeable> opened = new ArrayDeque<>();
        try {
            // New stores pack their tables (-Dsimdex.packed.tables=false keeps pages); a store keeps what it was made with.
            boolean packed = BucketTable.isPacked(dir) || fresh && Boolean.parseBoolean(System.getProperty("simdex.packed.tables", "true"));
            BucketTable buckets = new BucketTable(dir, geometry, clean, packed);
            opened.push(buckets);
            GrowingMap.Sizes documents = geometry.sizes(Math.max(1024, sizing.expectedDocuments()));
            IdSizes idSizes = new IdSizes(sizing.averageIdBytes());
            DocMaps docs = new DocMaps(dir, documents, idSizes, clean);
            opened.push(docs);
            // Only collections loaded with texts record content hashes: the file comes with the first.
            GrowingMap<byte[], Long> contents = GrowingMap.onFirstWrite(dir, "content", documents,
                    n -> ChronicleMap.of(byte[].class, Long.class).entries(n).constantKeySizeBySample(new byte[CONTENT_HASH_BYTES])
                            .maxBloatFactor(2.0), clean);
            opened.push(contents);
            TextStore texts = new TextStore(dir, documents, idSizes, clean);
            return new CollectionStore(dir, buckets, docs, contents, texts);
        } catch (RuntimeException e) {
            for (Closeable c : opened) {
                try {
                    c.close();
                } catch (IOException | RuntimeException again) {
                    e.addSuppressed(again);
                }
            }
            throw e;
        }
    }

    public BucketTable buckets() {
        return buckets;
    }

    public DocMaps docs() {
        return docs;
    }

    /** Short texts and sketches for verification: id -> stored form, at the id's owner. */
    public TextStore texts() {
        return texts;
    }

    /** Content index: 16-byte content hash -> the fingerprint of that text (see ContentHash in core). */
    public GrowingMap<byte[], Long> contents() {
        return contents;
    }

    @Override
    public void close() {
        buckets.close();
        docs.close();
        contents.close();
        texts.close();
        MapFiles.putCleanMarker(dir);
    }
}
