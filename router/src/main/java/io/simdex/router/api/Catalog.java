package io.simdex.router.api;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.util.JsonFormat;
import io.grpc.Status;
import io.simdex.core.io.DurableFiles;
import io.simdex.proto.v1.CollectionInfo;
import io.simdex.proto.v1.CollectionSettings;
import io.simdex.proto.v1.ListCollectionsResponse;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.function.UnaryOperator;

/**
 * The collections that exist and their settings, persisted as {@code collections.json}
 * (protobuf JSON of a ListCollectionsResponse) and rewritten atomically on each change.
 * "default" always exists, with default settings. In a cluster the routers share one catalog
 * ({@link Shared}, kept in Atomix): the file is then this router's cache of it. A collection's
 * settings change only by UpdateCollection ({@link #update}); a collection deleted or updated
 * through another router is refreshed in this cache at its next {@link #all}, which a cluster
 * router calls on each of the shared catalog's events and its sweeps every minute.
 */
public final class Catalog {
    public static final String DEFAULT = "default";

    /** The cluster-wide catalog: first writer of a name wins. */
    public interface Shared {
        /** Stores {@code info} unless its name exists; returns what was there before (null if nothing). */
        CollectionInfo putIfAbsent(CollectionInfo info);

        Optional<CollectionInfo> get(String name);

        List<CollectionInfo> all();

        /** Removes {@code name}; true if it was there. */
        boolean remove(String name);

        /** Stores {@code updated} in place of {@code expected} if that is still its name's entry; false otherwise. */
        boolean replace(CollectionInfo expected, CollectionInfo updated);
    }

    /** Compare-and-set rounds an update tries before it gives up to other routers' updates of the same collection. */
    private static final int UPDATE_ATTEMPTS = 10;

    private final Path file;
    private final Shared shared;
    private final ConcurrentSkipListMap<String, CollectionInfo> collections = new ConcurrentSkipListMap<>();

    public Catalog(Path dir) {
        this(dir, null);
    }

    /** @param shared the cluster's catalog, or null for a router of its own */
    public Catalog(Path dir, Shared shared) {
        this.shared = shared;
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

    /**
     * Whether {@link #get} answers the collection a request names ({@code ""}: the default) from
     * this router's own cache, without asking the cluster.
     */
    public boolean cached(String requestName) {
        return collections.containsKey(requestName.isEmpty() ? DEFAULT : requestName);
    }

    public Optional<CollectionInfo> get(String name) {
        CollectionInfo local = collections.get(name);
        if (local != null || shared == null) {
            return Optional.ofNullable(local);
        }
        Optional<CollectionInfo> found = shared.get(name); // made by another router
        found.ifPresent(this::cache);
        return found;
    }

    /** Caches {@code info} from the cluster's catalog, in place of what this router had under its name. */
    private synchronized void cache(CollectionInfo info) {
        if (!info.equals(collections.get(info.getName()))) {
            collections.put(info.getName(), info);
            save();
        }
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
        if (shared != null) {
            CollectionInfo first = shared.putIfAbsent(info);
            if (first != null) {
                cache(first);
                return new Created(first, false);
            }
        }
        collections.put(name, info);
        try {
            save();
        } catch (RuntimeException e) {
            // Not on disk, so not created: cached, a retry would answer "exists" and the
            // collection would be gone after a restart.
            collections.remove(name);
            throw e;
        }
        return new Created(info, true);
    }

    public record Created(CollectionInfo collection, boolean created) {
    }

    /**
     * Gives {@code name} the settings {@code change} makes of its current ones; empty when it
     * does not exist. In a cluster the shared entry is replaced only if no other router changed
     * it meanwhile (else {@code change} is applied again to what that router stored), and other
     * routers take it at their next {@link #all}: on its event, or at their next sweep.
     */
    public synchronized Optional<Updated> update(String name, UnaryOperator<CollectionSettings> change) {
        for (int attempt = 1; ; attempt++) {
            CollectionInfo before = shared != null ? shared.get(name).orElse(null) : collections.get(name);
            if (before == null) {
                return Optional.empty();
            }
            CollectionInfo after = before.toBuilder().setSettings(change.apply(before.getSettings())).build();
            if (after.equals(before)) {
                if (shared != null) {
                    cache(before);
                }
                return Optional.of(new Updated(before, false));
            }
            if (shared != null && !shared.replace(before, after)) {
                if (attempt == UPDATE_ATTEMPTS) {
                    throw Status.ABORTED.withDescription("collection '" + name + "' was changed by other routers " + attempt
                            + " times while this update was made; retry").asRuntimeException();
                }
                continue;
            }
            CollectionInfo was = collections.put(name, after);
            try {
                save();
            } catch (RuntimeException e) {
                if (shared == null) { // not on disk, so not changed
                    collections.put(name, was);
                }
                throw e;
            }
            return Optional.of(new Updated(after, true));
        }
    }

    public record Updated(CollectionInfo collection, boolean changed) {
    }

    public List<CollectionInfo> all() {
        if (shared != null) {
            List<CollectionInfo> current = shared.all();
            current.forEach(this::cache);
            forgetAllBut(current);
        }
        return new ArrayList<>(collections.values());
    }

    /** Removes {@code name} (never "default"); true if it existed here or in the cluster's catalog. */
    public synchronized boolean remove(String name) {
        if (name.equals(DEFAULT)) {
            throw new IllegalArgumentException("the default collection always exists");
        }
        boolean existed = shared != null && shared.remove(name);
        CollectionInfo was = collections.remove(name);
        if (was != null) {
            try {
                save();
            } catch (RuntimeException e) {
                collections.put(name, was);
                throw e;
            }
            existed = true;
        }
        return existed;
    }

    /** Drops cached entries another router deleted. */
    private synchronized void forgetAllBut(List<CollectionInfo> current) {
        java.util.Set<String> names = new java.util.HashSet<>();
        current.forEach(c -> names.add(c.getName()));
        if (collections.keySet().removeIf(n -> !names.contains(n) && !n.equals(DEFAULT))) {
            save();
        }
    }

    private void save() {
        try {
            DurableFiles.replace(file, JsonFormat.printer().print(ListCollectionsResponse.newBuilder().addAllCollections(collections.values())));
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalStateException(e);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }
}
