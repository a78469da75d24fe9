package io.simdex.server.store;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Whether a key may be in an older {@link GrowingMap} generation: a Bloom filter over the keys'
 * 32-bit hashes. A key it rules out costs no Chronicle lookup in that generation,
 * which for a new id or fingerprint was one random page per older generation on every write.
 *
 * <p>Blocked: a key's {@link #BITS} bits lie in one 64-bit word, so a test touches one cache
 * line. At {@link #BITS_PER_KEY} bits per key about 1% of absent keys pass (measured in
 * KeyFilterTest), and keys with equal hashes pass for each other: a false positive costs
 * the lookup it would have cost anyway, never an answer.
 *
 * <p>Keys are added by any thread, concurrently with tests: an add ORs its bits into its word
 * atomically, so two adds to one word cannot lose either's bits, and a test reads the word with
 * volatile semantics, so an add that ended before a test began is seen by it. Removed keys
 * keep their bits; {@link #fill} tells how far that and later adds have worn the filter.
 */
final class KeyFilter {
    private static final VarHandle WORDS = MethodHandles.arrayElementVarHandle(long[].class);
    /** Memory: 1.5 bytes of heap per key of an older generation. */
    static final int BITS_PER_KEY = 12;
    private static final int BITS = 6;

    private final long[] words;

    /** A filter for up to {@code keys} keys (more only raise its false positives). */
    KeyFilter(long keys) {
        words = new long[(int) Math.min(1 << 28, (Math.max(1, keys) * BITS_PER_KEY + 63) / 64)];
    }

    void add(int hash) {
        long h = mix(hash);
        WORDS.getAndBitwiseOr(words, word(h), bits(h));
    }

    boolean mightContain(int hash) {
        long h = mix(hash);
        long b = bits(h);
        return ((long) WORDS.getVolatile(words, word(h)) & b) == b;
    }

    /** The share of bits set: about 0.4 at {@link #BITS_PER_KEY} bits a key, where about 1% of absent keys pass. */
    double fill() {
        long set = 0;
        for (int i = 0; i < words.length; i++) {
            set += Long.bitCount((long) WORDS.getVolatile(words, i));
        }
        return set / (64.0 * words.length);
    }

    /** The key's word, from the high 28 bits of the mixed hash scaled to the length (no power of two needed). */
    private int word(long h) {
        return (int) (((h >>> 36) * words.length) >>> 28);
    }

    long bytes() {
        return 8L * words.length;
    }

    /** The key's bits within its word, from the low 36 bits of the mixed hash. */
    private static long bits(long h) {
        long b = 0;
        for (int i = 0; i < BITS; i++) {
            b |= 1L << ((h >>> (6 * i)) & 63);
        }
        return b;
    }

    /** Murmur3's 64-bit finaliser: every output bit depends on every bit of the hash. */
    private static long mix(int hash) {
        long h = hash * 0x9E3779B97F4A7C15L;
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb9fe1a85ec53L;
        return h ^ (h >>> 33);
    }
}
