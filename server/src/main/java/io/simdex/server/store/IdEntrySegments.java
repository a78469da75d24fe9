package io.simdex.server.store;

import net.openhft.chronicle.map.ChronicleMapBuilder;

import java.util.function.BiFunction;

/**
 * The segment layout of a map whose entries are an id and 8 bytes (the id and fingerprint maps
 * of {@link DocMaps}): segments of at most {@link #ENTRIES_PER_SEGMENT} entries, each with room
 * for {@link #ROOM} times its entries' chunks.
 *
 * <p>Why: left to itself, Chronicle Map lays such a map out in power-of-two segments with room
 * for a segment far above its mean (it sizes for the 99.999th percentile of each segment's
 * count), and with 8-byte hash slots once a segment's chunks outgrow 4-byte ones. A map of 250,000
 * 16-byte ids (a 1M-document store's shard) took 48.2 B of file an entry so, and 40.7 laid out
 * here; one of 2.5M, 45.9 and 40.7. Those entries were 32 B (four 8-byte chunks: the id, its
 * size byte, the fingerprint, a 4-byte checksum); without the checksum, in 5-byte chunks, they
 * are 25 (below), and a full generation takes 34.7 B an entry (DocMapsTest).
 *
 * <h2>No entry checksums</h2>
 * Chronicle Map's recovery drops an entry whose checksum is wrong, the mark of a write a kill cut
 * short; these maps have no write a kill can cut short. A new entry is written before the hash
 * slot that makes it reachable (Chronicle Map's insertion, spec 6), so a kill leaves it whole or
 * unreachable; an id's fingerprint is rewritten in place by one 8-byte store; a removal clears
 * a slot; and every other rewrite, of a fingerprint's ids, is recorded first and redone whole
 * when the store opens after a crash ({@link RedoSlots}), over whatever the kill left. Without
 * the 4-byte checksum an entry of a 16-byte id is 25 bytes, five chunks of
 * {@link IdSizes#CHUNK_BYTES} with none to spare. Maps created with checksums keep them (the
 * file says). An OS crash can tear any write: the write-ahead log is for that.
 *
 * <p>A segment past its room is not a failure: it takes an extra tier, up to the maps' bloat
 * factor, and a generation whose tiers are spent counts as full ({@link GrowingMap}). Keys are
 * placed by hash, so a segment's count is binomial: 5% above a mean of 5,400 is 3.7 standard
 * deviations, which about one segment in 10,000 of a full generation exceeds.
 */
final class IdEntrySegments {
    /**
     * Most entries a segment is laid out for: with more, its chunks (four an entry of a 16-byte
     * id, in 8-byte chunks) outgrew what a 4-byte hash slot addresses, and its hash slots doubled
     * to 8 bytes: a shard map of 250,000 entries took 41.0 B an entry in segments of 5,411 and
     * 46.9 in segments of 5,528. In 5-byte chunks, five an entry, segments of up to 5,400 keep
     * 4-byte slots: a 50M-document store's maps took 33.4 B an entry (REPORT.md, doc-bytes).
     */
    static final long ENTRIES_PER_SEGMENT = 5_400;
    /**
     * A segment's chunks over those its mean count of entries needs ({@link IdSizes#chunksPerEntry}).
     * Tighter room costs writes time as a generation fills: unary Inserts of 2M short ids into
     * an embedded store sized for 1M ran at 0.93x the rate of Chronicle Map's own layout with 5%
     * room (medians of 8 and 10 runs), and at 1.04x with 25%, which takes 6 B more an entry.
     */
    static final double ROOM = 1.05;

    private IdEntrySegments() {
    }

    /**
     * Lays out {@code builder}, made for {@code entries} entries, for the ids {@code idSizes} has
     * seen: {@code idSize} tells the builder their size by a sample id (the key's or the value's).
     * Ids longer than the layout's guess fill a generation by bytes before entries (see
     * {@link IdSizes}), so their segments overflow into extra tiers: for them Chronicle Map lays
     * the segments out itself, with room to spare. A 1M-document store of 70-byte ids (laid out
     * for 24) took 230 B of document maps a document so, and 300 in segments of 5,400.
     */
    static <K, V> ChronicleMapBuilder<K, V> laidOut(ChronicleMapBuilder<K, V> builder, long entries, IdSizes idSizes,
            BiFunction<ChronicleMapBuilder<K, V>, String, ChronicleMapBuilder<K, V>> idSize) {
        // Each generation may bloat to 2x its entries (extra segment tiers) before the next
        // generation takes new keys, so an uneven spread over segments never fails a write.
        builder = idSize.apply(builder, idSizes.sample())
                .actualChunkSize(IdSizes.CHUNK_BYTES)
                .checksumEntries(false)
                .maxBloatFactor(2.0);
        if (idSizes.longerThanGuess()) {
            return builder;
        }
        long segments = Math.max(1, (entries + ENTRIES_PER_SEGMENT - 1) / ENTRIES_PER_SEGMENT);
        long perSegment = (entries + segments - 1) / segments;
        return builder.actualSegments((int) segments)
                .entriesPerSegment(perSegment)
                .actualChunksPerSegmentTier((long) Math.ceil(perSegment * idSizes.chunksPerEntry() * ROOM));
    }
}
