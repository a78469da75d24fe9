package io.simdex.server.store;

import net.openhft.chronicle.map.ChronicleMap;

import java.io.Closeable;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.LongPredicate;
import java.util.function.ObjLongConsumer;
import java.util.function.Predicate;

/**
 * The two document maps of a shard and collection, both persisted Chronicle Maps:
 * <ul>
 *   <li>{@code ids-G.cm}: id -> fingerprint, for the ids this shard owns by hash(id);</li>
 *   <li>{@code fps-G.cm} (and {@code hot-G.cm}): fingerprint -> ids, for the fingerprints this
 *       shard owns by hash(fingerprint), at any number of ids per fingerprint
 *       ({@link FingerprintIds}).</li>
 * </ul>
 * Keeping ids out of the bucket pages keeps those at 6 bytes a table; a probe resolves ids
 * only for its matches. Every method is atomic per key; the maps grow by generations
 * ({@link GrowingMap}), so a collection can outgrow the size it was created for.
 */
public final class DocMaps implements Closeable {
    private final GrowingMap<String, Long> idToFp;
    private final FingerprintIds fpToIds;

    private final IdSizes idSizes;

    /** Maps sized for {@code expectedDocs} from their first file (at least 1,024 entries). */
    DocMaps(Path dir, long expectedDocs, int averageIdBytes, boolean clean) {
        this(dir, GrowingMap.Sizes.doubling(Math.max(1024, expectedDocs)), new IdSizes(averageIdBytes), clean);
    }

    /** Maps whose generations are sized for the ids {@code idSizes} has seen when each is made. */
    DocMaps(Path dir, GrowingMap.Sizes entries, IdSizes idSizes, boolean clean) {
        this.idSizes = idSizes;
        // The two maps are opened side by side: a new one spends seconds in page faults zeroing
        // its hash lookups (kernel memset, one core). A 50M-sized store on 4 shards was created
        // in 15.7-17.8 s with the maps opened one after the other, in 12.3 s side by side.
        CompletableFuture<GrowingMap<String, Long>> ids = CompletableFuture.supplyAsync(() -> new GrowingMap<>(dir, "ids", entries,
                n -> IdEntrySegments.laidOut(ChronicleMap.of(String.class, Long.class).entries(n), n, idSizes,
                        (b, id) -> b.averageKey(id)), clean));
        try {
            // A fingerprint's value holds its ids, one for most fingerprints.
            fpToIds = new FingerprintIds(new GrowingMap<>(dir, "fps", entries, n -> IdEntrySegments.laidOut(ChronicleMap.of(Long.class, String.class)
                    .entries(n), n, idSizes, (b, id) -> b.averageValue(id)), clean),
                    dir, idSizes.average(), clean);
        } catch (RuntimeException e) {
            ids.thenAccept(GrowingMap::close);
            throw e;
        }
        try {
            idToFp = ids.join();
        } catch (CompletionException e) {
            fpToIds.close();
            throw e.getCause() instanceof RuntimeException r ? r : e;
        }
    }

    /** Binds {@code id} to {@code fp}; returns what it was bound to before. */
    public OptionalLong bind(String id, long fp) {
        idSizes.seen(id);
        Long previous = idToFp.put(id, fp);
        return previous == null ? OptionalLong.empty() : OptionalLong.of(previous);
    }

    /** Unbinds {@code id}; returns what it was bound to. */
    public OptionalLong unbind(String id) {
        Long previous = idToFp.remove(id);
        return previous == null ? OptionalLong.empty() : OptionalLong.of(previous);
    }

    /** The fingerprint {@code id} is bound to. */
    public OptionalLong fingerprintOf(String id) {
        Long fp = idToFp.get(id);
        return fp == null ? OptionalLong.empty() : OptionalLong.of(fp);
    }

    /** Adds {@code id} to the ids of {@code fp}; true when {@code fp} had no ids before. */
    public boolean attach(long fp, String id) {
        return fpToIds.attach(fp, id);
    }

    /** Removes {@code id} from the ids of {@code fp}; true when {@code fp} has no ids left. */
    public boolean detach(long fp, String id) {
        return fpToIds.detach(fp, id);
    }

    /** All ids of {@code fp}, empty when none. */
    public String[] ids(long fp) {
        return fpToIds.ids(fp, 0).ids();
    }

    /** Up to {@code limit} ids of {@code fp} (0: all) in {@code ids}, and in {@code total} how many it has. */
    public IdList ids(long fp, int limit) {
        return fpToIds.ids(fp, limit);
    }

    /** Some ids of a fingerprint, and how many it has. */
    public record IdList(String[] ids, long total) {
        public static final IdList NONE = new IdList(new String[0], 0);
    }

    /** Calls {@code action} with every binding (id, fingerprint); see {@link GrowingMap#forEach}. */
    public void forEachBinding(ObjLongConsumer<String> action) {
        idToFp.forEach((id, fp) -> action.accept(id, fp));
    }

    /** Calls {@code action} with every (id, fingerprint) pair of the fp -> ids map. */
    public void forEachAttachment(ObjLongConsumer<String> action) {
        fpToIds.forEach(action);
    }

    /** Unbinds every id {@code drop} accepts; returns how many. */
    public long unbindIf(Predicate<String> drop) {
        return idToFp.removeIf((id, fp) -> drop.test(id));
    }

    /** Removes the ids of every fingerprint {@code drop} accepts; returns how many (fp, id) pairs. */
    public long detachIf(LongPredicate drop) {
        return fpToIds.removeIf(drop);
    }

    /** Where a reader of the bindings goes on: a segment of a map generation of {@code ids-G.cm}. */
    public record Position(int mapGeneration, int segment) {
        public static final Position START = new Position(0, 0);
    }

    /**
     * Passes to {@code out} the bindings whose ids {@code keep} accepts, segment by segment from
     * {@code from}, to a page that holds {@code inPage} already, and stops before a segment
     * whose bindings would take the page past {@code limit} (unless the page is still empty, so
     * that no page is empty for want of room); returns where the next page begins, or null when
     * no segment follows. Pages end between segments, so a binding not changed while a reader
     * pages through is in exactly one page.
     */
    public Position exportBindings(Position from, int inPage, int limit, Predicate<String> keep, ObjLongConsumer<String> out) {
        List<String> ids = new ArrayList<>();
        List<Long> fps = new ArrayList<>();
        int passed = inPage;
        for (int g = from.mapGeneration(); g < idToFp.generationCount(); g++) {
            for (int s = g == from.mapGeneration() ? from.segment() : 0; s < idToFp.segments(g); s++) {
                ids.clear();
                fps.clear();
                idToFp.forEachInSegment(g, s, (id, fp) -> {
                    if (keep.test(id)) {
                        ids.add(id);
                        fps.add(fp);
                    }
                });
                if (passed > 0 && passed + ids.size() > limit) {
                    return new Position(g, s);
                }
                for (int i = 0; i < ids.size(); i++) {
                    out.accept(ids.get(i), fps.get(i));
                }
                passed += ids.size();
            }
        }
        return null;
    }

    FingerprintIds fpToIds() {
        return fpToIds;
    }

    public long documents() {
        return idToFp.size();
    }

    public long fingerprints() {
        return fpToIds.fingerprints();
    }

    public long offHeapBytes() {
        return idToFp.offHeapBytes() + fpToIds.offHeapBytes();
    }

    @Override
    public void close() {
        idToFp.close();
        fpToIds.close();
    }
}
