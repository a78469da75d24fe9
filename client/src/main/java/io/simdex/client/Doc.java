package io.simdex.client;

/**
 * A document to store: an id and either its fingerprint (computed by the caller) or its text
 * (fingerprinted by the server). Exactly one of {@code fingerprint} and {@code text} is
 * non-null; the server checks the id and text rules (1..256 bytes, non-blank text).
 *
 * @param id          the document's id
 * @param fingerprint the unsigned 64-bit fingerprint, or null when {@code text} is given
 * @param text        the text to fingerprint, or null when {@code fingerprint} is given
 */
public record Doc(String id, Long fingerprint, String text) {
    /** @throws IllegalArgumentException when id is null or not exactly one content is given */
    public Doc {
        if (id == null) {
            throw new IllegalArgumentException("document id is null");
        }
        if ((fingerprint == null) == (text == null)) {
            throw new IllegalArgumentException("document '" + id + "' needs exactly one of fingerprint and text");
        }
    }

    /** A document with a caller-computed fingerprint. */
    public static Doc of(String id, long fingerprint) {
        return new Doc(id, fingerprint, null);
    }

    /** A document whose fingerprint the server computes from {@code text}. */
    public static Doc ofText(String id, String text) {
        return new Doc(id, null, text);
    }

    public boolean hasFingerprint() {
        return fingerprint != null;
    }
}
