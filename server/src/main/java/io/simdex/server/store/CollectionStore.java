package io.simdex.server.store;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Everything one shard keeps for one collection, in one directory:
 * {@code geometry.properties}, {@code buckets-G.cm}, {@code ids.cm}, {@code fps.cm}, and
 * {@code .clean} while closed cleanly.
 */
public final class CollectionStore implements Closeable {
    private final Path dir;
    private final BucketTable buckets;
    private final DocMaps docs;

    private CollectionStore(Path dir, BucketTable buckets, DocMaps docs) {
        this.dir = dir;
        this.buckets = buckets;
        this.docs = docs;
    }

    /** Opens the store in {@code dir}, creating it with {@code sizing} if new, recovering it after a crash. */
    public static CollectionStore open(Path dir, StoreSizing sizing) {
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        boolean fresh = !Files.exists(dir.resolve(TableGeometry.FILE));
        boolean clean = MapFiles.takeCleanMarker(dir) || fresh;
        TableGeometry geometry = TableGeometry.loadOrStore(dir, sizing.geometry());
        BucketTable buckets = new BucketTable(dir, geometry, clean);
        DocMaps docs = new DocMaps(dir, sizing.expectedDocuments(), sizing.averageIdBytes(), clean);
        return new CollectionStore(dir, buckets, docs);
    }

    public BucketTable buckets() {
        return buckets;
    }

    public DocMaps docs() {
        return docs;
    }

    @Override
    public void close() {
        buckets.close();
        docs.close();
        MapFiles.putCleanMarker(dir);
    }
}
