package io.simdex.client;

/**
 * A stored document near a probe.
 *
 * @param id          the stored document's id
 * @param fingerprint its unsigned 64-bit fingerprint
 * @param distance    Hamming distance to the probe's fingerprint, 0..64
 */
public record Match(String id, long fingerprint, int distance) {
}
