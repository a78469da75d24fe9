package io.simdex.fingerprint.crawl;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.text.Normalizer;
import java.util.Locale;

/**
 * The identity of a page's content for exact deduplication: the first 128 bits of SHA-256 over
 * the UTF-8 bytes of the {@linkplain #normalise normalised} text. Two contents are "the same"
 * exactly when their hashes are equal, up to a 2^-128 chance per pair.
 *
 * <h2>Why SHA-256, and why 128 bits of it</h2>
 * <ul>
 *   <li><b>Width.</b> A 64-bit hash over 4 billion pages has about a 40% chance of one
 *       collision (birthday bound n^2 / 2^65), and a collision here silently deletes a distinct
 *       page as an "exact duplicate". 128 bits push that below 10^-19.</li>
 *   <li><b>Adversaries.</b> Crawled content is written by strangers, some hostile. With MD5
 *       (Nutch's signature) or a non-cryptographic hash such as XXH3-128, a spammer can build a
 *       page that collides with a victim's page, outscore it, and have the victim dropped.
 *       SHA-256 has no known collisions; its 128-bit prefix still needs about 2^64 work to
 *       collide.</li>
 *   <li><b>Cost.</b> The JDK's SHA-256 uses the CPU's SHA extensions where present, over
 *       1 GB/s on current x86; normalising and tokenising the same text costs far more, so the
 *       faster XXH3 would buy nothing that shows.</li>
 * </ul>
 *
 * <h2>Normal form</h2>
 * NFKC, lower case ({@link Locale#ROOT}), runs of whitespace collapsed to one space, trimmed.
 * NFKC and lower case are what the SimHash pipeline applies before it cuts features, so equal
 * content hashes imply equal fingerprints; whitespace runs are layout, not content.
 * Punctuation and markup are kept: "exact" means the same words in the same order.
 */
public record ContentHash(long high, long low) implements Comparable<ContentHash> {
    private static final int HEX_DIGITS_PER_LONG = 16;
    /** The low 8 bits: a byte read as unsigned. */
    private static final int UNSIGNED_BYTE_MASK = 0xff;

    /**
     * The hash of {@code content} in its normal form. Whitespace-only content normalises to
     * the empty string and hashes as SHA-256 of no bytes ({@code e3b0c442...}).
     *
     * @throws IllegalArgumentException if content is null
     */
    public static ContentHash of(CharSequence content) {
        return of(content, newSha256());
    }

    /**
     * {@link #of(CharSequence)} with a caller's digester, reused across calls (a batch hashes a
     * million texts; {@link MessageDigest#digest} resets it). Not thread-safe: one digester per
     * thread.
     *
     * @throws IllegalArgumentException if content is null
     */
    public static ContentHash of(CharSequence content, MessageDigest sha256) {
        if (content == null) {
            throw new IllegalArgumentException("content is null");
        }
        return hashOf(normalise(content), sha256);
    }

    /**
     * {@link #of(CharSequence, MessageDigest) of(normal, sha256)} of a string {@link #normalise}
     * returned: an ASCII one is hashed as it is, since normalising it again changes nothing
     * (NFKC leaves ASCII alone, and it is lower case, with single spaces, trimmed already);
     * another is normalised again, as {@code of} does, so the hash stays that of stored keys
     * whether or not normalising twice changes it. Callers that keep the normal form skip a
     * second normalisation of most texts.
     */
    public static ContentHash ofNormal(String normal, MessageDigest sha256) {
        return isAscii(normal) ? hashOf(normal, sha256) : of(normal, sha256);
    }

    /** The first 128 bits of SHA-256 over {@code normal}'s UTF-8 bytes. */
    private static ContentHash hashOf(String normal, MessageDigest sha256) {
        byte[] digest = sha256.digest(normal.getBytes(StandardCharsets.UTF_8));
        return new ContentHash(longAt(digest, 0), longAt(digest, Long.BYTES));
    }

    /** A new SHA-256 digester for {@link #of(CharSequence, MessageDigest)}. */
    public static MessageDigest newSha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform must provide SHA-256", e);
        }
    }

    /**
     * NFKC, lower case, whitespace runs to one space, trimmed; see the class comment. A run is
     * any mix of {@link Character#isWhitespace} and {@link Character#isSpaceChar} chars (so
     * no-break and ideographic spaces too); whitespace-only content gives the empty string.
     */
    public static String normalise(CharSequence content) {
        // Every text a router is given passes here. Into a char array, with ASCII whitespace
        // told without Character's tables: 1.5x the texts a second of a StringBuilder and two
        // table lookups a char (English), 1.35-1.45x (Chinese); `simdex-loadtest jmh
        // TextFingerprintBenchmark.normalise -p words=60,200`. A text already in normal form
        // is returned as it is.
        String folded = fold(content);
        int n = folded.length();
        char[] out = new char[n];
        int len = 0;
        boolean pendingSpace = false;
        boolean same = true;
        for (int i = 0; i < n; i++) {
            char c = folded.charAt(i);
            if (isSpace(c)) {
                pendingSpace = len > 0;
                same &= c == ' ' && pendingSpace && i + 1 < n && !isSpace(folded.charAt(i + 1));
            } else {
                if (pendingSpace) {
                    out[len++] = ' ';
                    pendingSpace = false;
                }
                out[len++] = c;
            }
        }
        return same ? folded : new String(out, 0, len);
    }

    /** {@link Character#isWhitespace} or {@link Character#isSpaceChar}; ASCII without their tables. */
    private static boolean isSpace(char c) {
        if (c < 0x80) {
            return c == ' ' || c >= '\t' && c <= '\r' || c >= 0x1c && c <= 0x1f;
        }
        return Character.isWhitespace(c) || Character.isSpaceChar(c);
    }

    /**
     * NFKC, then lower case in {@link Locale#ROOT} (a Turkish default locale changes nothing),
     * whitespace left as it is. The SimHash pipeline cuts its features from this same fold
     * (core's {@code text.Normalization} calls it), which is why equal content hashes imply
     * equal fingerprints.
     */
    public static String fold(CharSequence text) {
        // NFKC maps every ASCII string to itself; the JDK's normaliser copies it anyway.
        String s = text.toString();
        return (isAscii(s) ? s : Normalizer.normalize(s, Normalizer.Form.NFKC)).toLowerCase(Locale.ROOT);
    }

    private static boolean isAscii(String s) {
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) >= 0x80) {
                return false;
            }
        }
        return true;
    }

    /** Unsigned order of {@code high}, then {@code low}: a total order for tie-breaks. */
    @Override
    public int compareTo(ContentHash other) {
        int c = Long.compareUnsigned(high, other.high);
        return c != 0 ? c : Long.compareUnsigned(low, other.low);
    }

    /** 32 lowercase hex digits. */
    @Override
    public String toString() {
        return hex(high) + hex(low);
    }

    private static String hex(long v) {
        String s = Long.toHexString(v);
        return "0".repeat(HEX_DIGITS_PER_LONG - s.length()) + s;
    }

    private static long longAt(byte[] bytes, int offset) {
        long v = 0;
        for (int i = 0; i < Long.BYTES; i++) {
            v = (v << Byte.SIZE) | (bytes[offset + i] & UNSIGNED_BYTE_MASK);
        }
        return v;
    }
}
