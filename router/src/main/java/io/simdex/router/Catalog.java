package io.simdex.router;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.util.JsonFormat;
import io.simdex.proto.v1.CollectionInfo;
import io.simdex.proto.v1.CollectionSettings;
import io.simdex.proto.v1.ListCollectionsResponse;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * The collections that exist and their settings, persisted as {@code collections.json}
 * (protobuf JSON of a ListCollectionsResponse) and rewritten atomically on each change.
 * "default" always exists, with default settings.
 */
public final class Catalog {
    public static final String DEFAULT = "default";

    private final Path file;
    private final ConcurrentSkipListMap<String, CollectionInfo> collections = new ConcurrentSkipListMap<>();

    public Catalog(Path dir) {
        this.file = dir.resolve("collections.json");
        try {
            Files.createDirectories(dir);
            if (Files.exists(file)) {
                ListCollectionsResponse.Builder b = ListCollectionsResponse.newBuilder();
                JsonFormat.parser().merge(Files.readString(file), b);
                b.getCollectionsList().forEach(c -> collections.put(c.getName(), c));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
        create(DEFAULT, CollectionSettingsRules.complete(CollectionSettings.getDefaultInstance()));
    }

    public Optional<CollectionInfo> get(String name) {
        return Optional.ofNullable(collections.get(name));
    }

    /**
     * Creates {@code name} with complete {@code settings}; returns the collection as it now is,
     * and whether this call created it.
     */
    public synchronized Created create(String name, CollectionSettings settings) {
        CollectionInfo existing = collections.get(name);
        if (existing != null) {
            return new Created(existing, false);
        }
        CollectionInfo info = CollectionInfo.newBuilder().setName(name).setCreatedUnixMs(System.currentTimeMillis())
                .setSettings(settings).build();
        collections.put(name, info);
        save();
        return new Created(info, true);
    }

    public record Created(CollectionInfo collection, boolean created) {
    }

    public List<CollectionInfo> all() {
        return new ArrayList<>(collections.values());
    }

    private void save() {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        try {
            Files.writeString(tmp, JsonFormat.printer().print(ListCollectionsResponse.newBuilder().addAllCollections(collections.values())));
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalStateException(e);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }
}
