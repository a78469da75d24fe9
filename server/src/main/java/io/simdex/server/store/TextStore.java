package io.simdex.server.store;

import net.openhft.chronicle.map.ChronicleMap;

import java.io.Closeable;
import java.nio.file.Path;
import java.util.function.BiConsumer;
import java.util.function.BiPredicate;

/**
 * What a shard keeps of its ids' texts for verification: id -> stored form, a short text or a
 * sketch (the router's {@code SketchRule}: NUL, then one character '0'..'o' per bin). Sketches
 * are packed into {@code sketches-G.cm}, 6 bits a bin ({@link PackedSketch}); a fingerprint's
 * sketch (a key of {@link FingerprintSketch}, 5 bits a bin) into {@code fpsketches-G.cm}, keyed by
 * the fingerprint itself; every other value, and every value written before those files existed,
 * lives in {@code texts-G.cm} as given. Each file comes with its first write. Reads answer the
 * stored form, whichever file holds it, so callers (verification, partition export, the log)
 * see one id -> string map.
 *
 * <p>A key lives in at most one of the files: a put removes it from the other.
 *
 * <p>Why two files: a sketch among short texts paid for the short texts' sizing (entries sized
 * for 120-character values: 185 bytes a sketch with 8-character ids, file bytes per entry of a
 * full map) and for that map's growth from 1,024 entries (a lookup per grown file). The sketch
 * file is sized for the collection's documents, with values of the packed size: 83 bytes a
 * sketch with 8-character ids, 98 with 16, 119 with 36 (the id is the key: each of its bytes
 * is stored again).
 */
public final class TextStore implements Closeable {
    private final GrowingMap<String, String> texts;
    private final GrowingMap<String, byte[]> sketches;
    private final GrowingMap<Long, byte[]> fingerprintSketches;

    TextStore(Path dir, GrowingMap.Sizes documents, int averageIdBytes, boolean clean) {
        this(dir, documents, new IdSizes(averageIdBytes), clean);
    }

    /** A store whose id-keyed generations are sized for the ids {@code idSizes} has seen when each is made. */
    TextStore(Path dir, GrowingMap.Sizes documents, IdSizes idSizes, boolean clean) {
        // Short texts only (collections with short-text verification): sized small, grown on demand.
        this.texts = GrowingMap.onFirstWrite(dir, "texts", 1024, n -> ChronicleMap.of(String.class, String.class)
                .entries(n).averageKey(idSizes.sample()).averageValue("x".repeat(120)).maxBloatFactor(2.0), clean);
        // One sketch per text document of a collection with sketches: sized like the documents.
        this.sketches = GrowingMap.onFirstWrite(dir, "sketches", documents, n -> ChronicleMap.of(String.class, byte[].class)
                .entries(n).averageKey(idSizes.sample()).averageValue(new byte[PackedSketch.DEFAULT_BYTES]).maxBloatFactor(2.0), clean);
        // A sketch per fingerprint (FingerprintSketch): keys and values of one size, no size fields,
        // and no entry checksums (an entry of a full map: 57 bytes of file, 61 with them). A kill
        // during a put can then leave a value torn rather than dropped by recovery: a new key is
        // published after its value, so only an overwrite can tear, and it mixes two sketches of
        // texts that share a fingerprint. Files made with checksums keep them (read from the header).
        this.fingerprintSketches = GrowingMap.onFirstWrite(dir, "fpsketches", documents, n -> ChronicleMap.of(Long.class, byte[].class)
                .entries(n).constantValueSizeBySample(new byte[FingerprintSketch.BYTES]).checksumEntries(false)
                .maxBloatFactor(2.0), clean);
    }

    /** The stored form kept for {@code id}; null if none. */
    public String get(String id) {
        if (FingerprintSketch.isKey(id)) {
            byte[] packed = fingerprintSketches.get(FingerprintSketch.fingerprintOf(id));
            return packed != null ? FingerprintSketch.unpack(packed) : texts.get(id);
        }
        byte[] packed = sketches.get(id);
        return packed != null ? PackedSketch.unpack(packed) : texts.get(id);
    }

    /** The packed sketch kept for {@code fp} ({@link FingerprintSketch}); null if none is packed. */
    public byte[] packedSketchOf(long fp) {
        return fingerprintSketches.get(fp);
    }

    /** Keeps {@code value} for {@code id}, a sketch packed. */
    public void put(String id, String value) {
        boolean byFingerprint = FingerprintSketch.isKey(id);
        byte[] packed = byFingerprint ? FingerprintSketch.pack(value) : PackedSketch.pack(value);
        if (packed != null) {
            if (byFingerprint) {
                fingerprintSketches.put(FingerprintSketch.fingerprintOf(id), packed);
            } else {
                sketches.put(id, packed);
            }
            texts.remove(id);
        } else {
            // Removed first: a sketch left beside the text would shadow it (reads prefer sketches).
            removePacked(id);
            texts.put(id, value);
        }
    }

    /** Removes what is kept for {@code id}; true if something was. */
    public boolean remove(String id) {
        boolean packed = removePacked(id);
        return texts.remove(id) != null || packed;
    }

    private boolean removePacked(String id) {
        if (FingerprintSketch.isKey(id)) {
            return fingerprintSketches.remove(FingerprintSketch.fingerprintOf(id)) != null;
        }
        return sketches.remove(id) != null;
    }

    /** Calls {@code action} with every (id, stored form). */
    public void forEach(BiConsumer<String, String> action) {
        sketches.forEach((id, packed) -> action.accept(id, PackedSketch.unpack(packed)));
        fingerprintSketches.forEach((fp, packed) -> action.accept(FingerprintSketch.key(fp), FingerprintSketch.unpack(packed)));
        texts.forEach(action);
    }

    /** Removes every entry {@code drop} accepts; returns how many. */
    public long removeIf(BiPredicate<String, String> drop) {
        return sketches.removeIf((id, packed) -> drop.test(id, PackedSketch.unpack(packed)))
                + fingerprintSketches.removeIf((fp, packed) -> drop.test(FingerprintSketch.key(fp), FingerprintSketch.unpack(packed)))
                + texts.removeIf(drop);
    }

    /** Entries in the three files. */
    public long size() {
        return sketches.size() + fingerprintSketches.size() + texts.size();
    }

    public long offHeapBytes() {
        return sketches.offHeapBytes() + fingerprintSketches.offHeapBytes() + texts.offHeapBytes();
    }

    @Override
    public void close() {
        sketches.close();
        fingerprintSketches.close();
        texts.close();
    }
}
