package io.simdex.router.index;

import io.simdex.core.text.BitMinHash;
import io.simdex.core.text.ShortTextFingerprint;

/**
 * How a collection fingerprints short texts: by {@link BitMinHash} up to the boundary of
 * {@code lengths} (its {@link BitMinHash#partitioned partitioned} form when {@code partitioned},
 * its bins ordered by {@code order}), by SimHash above it, and the sketch rule that verifies the
 * candidates of a MinHash probe (the collection's threshold, its own candidate distance).
 */
public record ShortFingerprintRule(ShortTextFingerprint lengths, SketchRule probeRule, boolean partitioned, BitMinHash.BinOrder order) {
    /** Whether a normalised text is stored with its MinHash fingerprint. */
    public boolean isShort(String normalised) {
        return lengths.isShort(lengths.letters(normalised));
    }

    /** The MinHash fingerprint of a normalised text. */
    public long fingerprint(String normalised) {
        return partitioned ? BitMinHash.partitioned(normalised, order) : BitMinHash.of(normalised, order);
    }
}
