package io.simdex.server.store;

import io.simdex.core.Ids;

import java.util.concurrent.atomic.LongAdder;

/**
 * The mean UTF-8 size of the ids a store has bound since it opened, up to the configured guess:
 * what a new map generation keyed or valued by ids is laid out for. Chronicle Map allocates a
 * generation's file whole, for its entries at the average key and value size it is given, so
 * a guess above the ids in use costs bytes on every entry: in a 1M-document embedded store,
 * 8-byte ids took 61 bytes of file a document in each of the id and fingerprint maps laid out
 * for 24, and 42 laid out for 8 (16-byte ids: 61 and 52).
 *
 * <p>Ids longer than the guess keep its layout: they fill a generation by its bytes before its
 * entries, and the next generation takes them ({@link GrowingMap}). Laid out for their mean
 * instead, a generation's file grows with them, and writers wait for the first one made for
 * the expected size: a 50M-sized store's first 20,000 documents with 200-byte ids took 26.5 s
 * (eight files of 3.45 GB zeroed by Chronicle Map), against 4.7 s with the 24-byte layout.
 *
 * <p>Until {@link #MIN_SEEN} ids are seen the guess is used: for a store's small first
 * generation, and after a restart, whose first generations are in their files already.
 */
final class IdSizes {
    static final int MIN_SEEN = 512;
    /**
     * The allocation unit of the maps whose entries are an id and a fingerprint: 5 bytes, so that
     * an entry of a 16-byte id (25 bytes: size byte, id, fingerprint) fills five chunks exactly,
     * where 8-byte chunks rounded it up to 32. A full generation of such entries laid out by
     * {@link IdEntrySegments} took 34.7 B of file an entry, against 42.0 in 8-byte chunks with
     * checksums (DocMapsTest). Chronicle Map picks 4
     * bytes for ids up to 18 bytes, and with that unit a bulk load of 16-byte ids into a
     * 50M-sized embedded store fell from about 150,000 to under 10,000 documents a second after
     * its first 150,000, its threads in the free-chunk search of each insert
     * ({@code setNextNContinuousClearBits}); a map of the same layout alone did not slow down,
     * so the cause is not known. With 5 bytes 50M such ids loaded in 304.7 s, against 344.3 s in
     * 8-byte chunks with checksums, one run each (REPORT.md, doc-bytes).
     */
    static final int CHUNK_BYTES = 5;
    /**
     * Besides its id, an entry of those maps holds the id's size (one byte up to 127) and 8 bytes.
     * No entry checksum: {@link IdEntrySegments} says why none is needed.
     */
    static final int OTHER_ENTRY_BYTES = 1 + Long.BYTES;
    private final int guess;
    private final LongAdder bytes = new LongAdder();
    private final LongAdder chunks = new LongAdder();
    private final LongAdder ids = new LongAdder();

    IdSizes(int guess) {
        this.guess = Math.max(1, guess);
    }

    void seen(String id) {
        int size = Ids.utf8Bytes(id);
        bytes.add(size);
        chunks.add(chunksOf(size));
        ids.increment();
    }

    /**
     * The mean {@link #CHUNK_BYTES} chunks an entry of an id seen takes in the id and fingerprint
     * maps; an id of the guess's until enough are seen. Not the chunks of the mean id: ids of 18
     * and 20 bytes take 4 and 5 chunks, 4.5 on average, where an id of their mean 19 takes 4.
     */
    double chunksPerEntry() {
        long n = ids.sum();
        return n < MIN_SEEN ? chunksOf(guess) : (double) chunks.sum() / n;
    }

    private static int chunksOf(int idBytes) {
        return (idBytes + OTHER_ENTRY_BYTES + CHUNK_BYTES - 1) / CHUNK_BYTES;
    }

    /** The mean size in bytes, rounded up, at most the guess; the guess until enough ids are seen. */
    int average() {
        long n = ids.sum();
        return n < MIN_SEEN ? guess : (int) Math.max(1, Math.min(guess, (bytes.sum() + n - 1) / n));
    }

    /**
     * Whether the ids seen are longer on average than the guess, and so than {@link #average}:
     * false until {@link #MIN_SEEN} are seen.
     */
    boolean longerThanGuess() {
        long n = ids.sum();
        return n >= MIN_SEEN && bytes.sum() > n * guess;
    }

    /** An id of {@link #average} bytes, as Chronicle Map's builders take a size: by a sample. */
    String sample() {
        return "x".repeat(average());
    }
}
