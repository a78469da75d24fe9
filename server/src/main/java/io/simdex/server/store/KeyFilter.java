package io.simdex.server.store;

/**
 * Whether a key may be in a {@link GrowingMap} generation that takes no new keys: a Bloom filter
 * over the keys' 32-bit hashes. A key it rules out costs no Chronicle lookup in that generation,
 * which for a new id or fingerprint was one random page per older generation on every write.
 *
 * <p>Blocked: a key's {@link #BITS} bits lie in one 64-bit word, so a test touches one cache
 * line. At {@link #BITS_PER_KEY} bits per key about 1% of absent keys pass (measured in
 * KeyFilterTest), and keys with equal hashes pass for each other: a false positive costs
 * the lookup it would have cost anyway, never an answer.
 *
 * <p>Filled by one thread before it is published (a volatile write), then only read, so tests
 * need no lock and allocate nothing.
 */
final class KeyFilter {
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
        words[word(h)] |= bits(h);
    }

    boolean mightContain(int hash) {
        long h = mix(hash);
        long b = bits(h);
        return (words[word(h)] & b) == b;
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
