package io.simdex.client.batch;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.text.Normalizer;
import java.util.Locale;

/**
 * Exact-content identity of a text: the first 128 bits of SHA-256 over its normal form (NFKC,
 * lower case, whitespace runs collapsed to one space, trimmed). The same definition as
 * {@code io.simdex.core.crawl.ContentHash}, whose comment says why SHA-256 and why 128 bits;
 * repeated here because the client module does not depend on core. {@code ContentDigestTest}
 * pins both to the same test vector.
 */
final class ContentDigest {
    private ContentDigest() {
    }

    /** {high, low}: the digest's first and second 64 bits, big-endian. */
    static long[] of(String text, MessageDigest sha256) {
        byte[] d = sha256.digest(normalise(text).getBytes(StandardCharsets.UTF_8));
        return new long[] {longAt(d, 0), longAt(d, Long.BYTES)};
    }

    /** A SHA-256 digester; one per thread, they are not thread-safe. */
    static MessageDigest newSha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform must provide SHA-256", e);
        }
    }

    static String normalise(String text) {
        String folded = Normalizer.normalize(text, Normalizer.Form.NFKC).toLowerCase(Locale.ROOT);
        StringBuilder out = new StringBuilder(folded.length());
        boolean pendingSpace = false;
        for (int i = 0; i < folded.length(); i++) {
            char c = folded.charAt(i);
            if (Character.isWhitespace(c) || Character.isSpaceChar(c)) {
                pendingSpace = out.length() > 0;
            } else {
                if (pendingSpace) {
                    out.append(' ');
                    pendingSpace = false;
                }
                out.append(c);
            }
        }
        return out.toString();
    }

    private static long longAt(byte[] bytes, int offset) {
        long v = 0;
        for (int i = 0; i < Long.BYTES; i++) {
            v = (v << Byte.SIZE) | (bytes[offset + i] & 0xff);
        }
        return v;
    }
}
