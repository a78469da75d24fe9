package io.simdex.client;

/**
 * What a query looks for: a fingerprint, or a text the server fingerprints. Exactly one of the
 * two is non-null.
 *
 * @param fingerprint the unsigned 64-bit fingerprint, or null when {@code text} is given
 * @param text        the text to fingerprint, or null when {@code fingerprint} is given
 */
public record Probe(Long fingerprint, String text) {
    /** @throws IllegalArgumentException when not exactly one content is given */
    public Probe {
        if ((fingerprint == null) == (text == null)) {
            throw new IllegalArgumentException("a probe needs exactly one of fingerprint and text");
        }
    }

    public static Probe of(long fingerprint) {
        return new Probe(fingerprint, null);
    }

    public static Probe ofText(String text) {
        return new Probe(null, text);
    }

    public boolean hasFingerprint() {
        return fingerprint != null;
    }
}
