package io.simdex.server.store;

import net.openhft.chronicle.map.ChronicleMap;

import java.io.Closeable;
import java.nio.file.Path;
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
 *   <li>{@code fps-G.cm}: fingerprint -> ids joined by '\n', for the fingerprints this shard owns
 *       by hash(fingerprint). Ids cannot hold control characters (checked at the API), and
 *       almost every fingerprint has one id, so a joined string beats a list type.</li>
 * </ul>
 * Keeping ids out of the bucket pages keeps those at 6 bytes a table; a probe resolves ids
 * only for its matches. Every method is atomic per key; both maps grow by generations
 * ({@link GrowingMap}), so a collection can outgrow the size it was created for.
 */
public final class DocMaps implements Closeable {
    private static final char SEPARATOR = '\n';
    private static final String SEPARATOR_STRING = String.valueOf(SEPARATOR);

    private final GrowingMap<String, Long> idToFp;
    private final GrowingMap<Long, String> fpToIds;

    DocMaps(Path dir, long expectedDocs, int averageIdBytes, boolean clean) {
        long entries = Math.max(1024, expectedDocs);
        String sampleId = "x".repeat(Math.max(1, averageIdBytes));
        // Each generation may bloat to 2x its entries (extra segment tiers) before the next
        // generation takes new keys, so an uneven spread over segments never fails a write.
        // The two maps are opened side by side: a new one spends seconds in page faults zeroing
        // its hash lookups (kernel memset, one core). A 50M-sized store on 4 shards was created
        // in 15.7-17.8 s with the maps opened one after the other, in 12.3 s side by side.
        CompletableFuture<GrowingMap<String, Long>> ids = CompletableFuture.supplyAsync(() -> new GrowingMap<>(dir, "ids", entries,
                n -> ChronicleMap.of(String.class, Long.class).entries(n).averageKey(sampleId).maxBloatFactor(2.0), clean));
        try {
            fpToIds = new GrowingMap<>(dir, "fps", entries, n -> ChronicleMap.of(Long.class, String.class)
                    .entries(n).averageValue(sampleId).maxBloatFactor(2.0), clean);
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
        boolean[] wasEmpty = {false};
        fpToIds.compute(fp, (k, joined) -> {
            if (joined == null || joined.isEmpty()) {
                wasEmpty[0] = true;
                return id;
            }
            return indexOf(joined, id) >= 0 ? joined : joined + SEPARATOR + id;
        });
        return wasEmpty[0];
    }

    /** Removes {@code id} from the ids of {@code fp}; true when {@code fp} has no ids left. */
    public boolean detach(long fp, String id) {
        String after = fpToIds.compute(fp, (k, joined) -> {
            if (joined == null) {
                return null;
            }
            int at = indexOf(joined, id);
            if (at < 0) {
                return joined;
            }
            int end = at + id.length();
            // Drop the id with one adjacent separator: the one after it if first, else the one before.
            String rest = at == 0
                    ? (end == joined.length() ? "" : joined.substring(end + 1))
                    : joined.substring(0, at - 1) + joined.substring(end);
            return rest.isEmpty() ? null : rest;
        });
        return after == null;
    }

    /** The ids of {@code fp}, empty when none. */
    public String[] ids(long fp) {
        return split(fpToIds.get(fp));
    }

    private static String[] split(String joined) {
        return joined == null || joined.isEmpty() ? new String[0] : joined.split(SEPARATOR_STRING);
    }

    /** Calls {@code action} with every binding (id, fingerprint); see {@link GrowingMap#forEach}. */
    public void forEachBinding(ObjLongConsumer<String> action) {
        idToFp.forEach((id, fp) -> action.accept(id, fp));
    }

    /** Calls {@code action} with every (id, fingerprint) pair of the fp -> ids map. */
    public void forEachAttachment(ObjLongConsumer<String> action) {
        fpToIds.forEach((fp, joined) -> {
            for (String id : split(joined)) {
                action.accept(id, fp);
            }
        });
    }

    /** Unbinds every id {@code drop} accepts; returns how many. */
    public long unbindIf(Predicate<String> drop) {
        return idToFp.removeIf((id, fp) -> drop.test(id));
    }

    /** Removes the ids of every fingerprint {@code drop} accepts; returns how many (fp, id) pairs. */
    public long detachIf(LongPredicate drop) {
        long[] pairs = {0};
        fpToIds.removeIf((fp, joined) -> {
            if (!drop.test(fp)) {
                return false;
            }
            pairs[0] += split(joined).length;
            return true;
        });
        return pairs[0];
    }

    public long documents() {
        return idToFp.size();
    }

    public long fingerprints() {
        return fpToIds.size();
    }

    public long offHeapBytes() {
        return idToFp.offHeapBytes() + fpToIds.offHeapBytes();
    }

    @Override
    public void close() {
        idToFp.close();
        fpToIds.close();
    }

    /** Position of {@code id} as a whole element of {@code joined}, or -1. */
    static int indexOf(String joined, String id) {
        int from = 0;
        while (true) {
            int at = joined.indexOf(id, from);
            if (at < 0) {
                return -1;
            }
            int end = at + id.length();
            boolean startOk = at == 0 || joined.charAt(at - 1) == SEPARATOR;
            boolean endOk = end == joined.length() || joined.charAt(end) == SEPARATOR;
            if (startOk && endOk) {
                return at;
            }
            from = at + 1;
        }
    }
}
