package io.simdex.client;

/**
 * A stored document near a probe.
 *
 * @param id          the stored document's id
 * @param fingerprint its unsigned 64-bit fingerprint
 * @param distance    Hamming distance to the probe's fingerprint, 0..64
 * @param similarity  with short-text verification, the shingle Jaccard similarity of the texts,
 *                    0..1; -1 when the match was found by distance alone
 */
public record Match(String id, long fingerprint, int distance, double similarity) {
    /** A match found by distance alone. */
    public Match(String id, long fingerprint, int distance) {
        this(id, fingerprint, distance, -1);
    }
}
