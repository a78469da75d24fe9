package io.simdex.server.store;

import io.simdex.core.text.MinHashSketch;

/**
 * A sketch kept per fingerprint, not per id: its key in the text store and its packed form.
 *
 * <pre>
 * key:          KEY_MARK + 16 hex digits of the fingerprint     (ids hold no control characters)
 * stored form:  NUL c0 c1 ... c59     ci = '0' + vi, vi in 0..31 (the low 5 bits of a bin)
 * packed:       300 bits, bin 0 first, each value's most significant bit first: 38 bytes
 * </pre>
 *
 * A key is placed like an id (the owner of {@code hash(key)}), so writes, the log, replication
 * and partition moves carry it as they carry ids' texts. Its value is packed only if it is
 * exactly of the stored form above, so {@code unpack(pack(s)).equals(s)} whenever
 * {@code pack(s)} is not null; the text store keeps other values as strings.
 *
 * <p>Why per fingerprint: a candidate is then judged before its ids are resolved, and stores no
 * copy of an id. Why 5 bits: 60 bins of 6 bits (45 bytes) took 69 file bytes an entry in a full
 * map keyed by a long; 38 bytes take 57 without entry checksums, 61 with (TextStoreTest), within 64
 * bytes a document.
 */
public final class FingerprintSketch {
    /** First character of a key: a control character, so never an id's. */
    public static final char KEY_MARK = '\u0002';
    /** First character of the stored form (the router's {@code SketchRule.MARK}). */
    static final char MARK = '\u0000';
    private static final char DIGIT_ZERO = '0';
    /** Bins and bits per bin of the packed form. */
    public static final int BINS = 60;
    public static final int BITS = 5;
    private static final int VALUE_MASK = (1 << BITS) - 1;
    static final int BYTES = (BINS * BITS + Byte.SIZE - 1) / Byte.SIZE;
    private static final int HEX_DIGITS = 16;

    private FingerprintSketch() {
    }

    /** The text store key of {@code fp}'s sketch. */
    public static String key(long fp) {
        char[] key = new char[1 + HEX_DIGITS];
        key[0] = KEY_MARK;
        for (int i = HEX_DIGITS; i >= 1; i--, fp >>>= 4) {
            key[i] = Character.forDigit((int) fp & 0xF, 16);
        }
        return new String(key);
    }

    /** Whether {@code id} is a fingerprint's key: the mark, then 16 lower-case hex digits. */
    public static boolean isKey(String id) {
        if (id.length() != 1 + HEX_DIGITS || id.charAt(0) != KEY_MARK) {
            return false;
        }
        for (int i = 1; i < id.length(); i++) {
            char c = id.charAt(i);
            if ((c < '0' || c > '9') && (c < 'a' || c > 'f')) {
                return false;
            }
        }
        return true;
    }

    /** The fingerprint of a key ({@link #isKey} holds). */
    static long fingerprintOf(String key) {
        return Long.parseUnsignedLong(key, 1, key.length(), 16);
    }

    /** The packed form of {@code stored}; null if it is not of the stored form above. */
    static byte[] pack(String stored) {
        if (stored.length() != 1 + BINS || stored.charAt(0) != MARK) {
            return null;
        }
        byte[] out = new byte[BYTES];
        long bits = 0;
        for (int i = 0; i < BINS; i++) {
            int v = stored.charAt(1 + i) - DIGIT_ZERO;
            if (v < 0 || v > VALUE_MASK) {
                return null;
            }
            bits = append(out, i, bits, v);
        }
        flush(out, bits);
        return out;
    }

    /** The packed form of the low {@link #BITS} bits of a sketch of {@link #BINS} bins. */
    public static byte[] pack(MinHashSketch sketch) {
        if (sketch.bins() != BINS || sketch.bits() < BITS) {
            throw new IllegalArgumentException(sketch.bins() + " bins of " + sketch.bits() + " bits, not " + BINS + " of " + BITS + " or more");
        }
        byte[] out = new byte[BYTES];
        long bits = 0;
        for (int i = 0; i < BINS; i++) {
            bits = append(out, i, bits, sketch.value(i) & VALUE_MASK);
        }
        flush(out, bits);
        return out;
    }

    /**
     * Packs a group of 8 bins (40 bits, 5 bytes) in a long and writes it out whole when bin
     * {@code bin}, the group's last, is added: a probe packs its sketch once per text, and bit
     * by bit that was a tenth of a short text's Dedup. Returns the group's bits so far.
     */
    private static long append(byte[] packed, int bin, long bits, int v) {
        bits = bits << BITS | v;
        if ((bin & (GROUP_BINS - 1)) == GROUP_BINS - 1) {
            writeGroup(packed, bin / GROUP_BINS, bits, GROUP_BINS);
            return 0;
        }
        return bits;
    }

    /** Writes the last, partial group ({@code BINS % 8} bins). */
    private static void flush(byte[] packed, long bits) {
        if (BINS % GROUP_BINS != 0) {
            writeGroup(packed, BINS / GROUP_BINS, bits, BINS % GROUP_BINS);
        }
    }

    /** Writes {@code n} bins' bits, most significant first, from the byte where group {@code group} starts. */
    private static void writeGroup(byte[] packed, int group, long bits, int n) {
        int width = n * BITS;
        long aligned = bits << (Long.SIZE - width);
        for (int i = 0, at = group * BITS; i < (width + Byte.SIZE - 1) / Byte.SIZE; i++, at++) {
            packed[at] = (byte) (aligned >>> (Long.SIZE - Byte.SIZE * (i + 1)));
        }
    }

    /** Bins of a group: 8 bins of 5 bits fill 5 bytes. */
    private static final int GROUP_BINS = Byte.SIZE;

    /** Bits of one group: 8 bins of 5 bits in 5 bytes, the lowest bit of each bin's value set. */
    private static final long GROUP_LOW_BITS = 0x08_4210_8421L;

    /**
     * How many bins two packed sketches agree in: 5 bytes (8 bins) at a time, a bin differing
     * where its 5 bits of the XOR are not all zero (folded onto the bin's lowest bit, counted).
     */
    public static int equalBins(byte[] a, byte[] b) {
        int differing = 0;
        for (int from = 0; from < BYTES; from += BITS) {
            long x = 0;
            for (int i = from; i < from + BITS; i++) {
                x = x << Byte.SIZE | (i < BYTES ? (a[i] ^ b[i]) & 0xFF : 0);
            }
            differing += Long.bitCount((x | x >>> 1 | x >>> 2 | x >>> 3 | x >>> 4) & GROUP_LOW_BITS);
        }
        return BINS - differing;
    }

    /** The value of bin {@code bin} in a packed sketch. */
    public static int value(byte[] packed, int bin) {
        int v = 0;
        for (int b = 0, bit = bin * BITS; b < BITS; b++, bit++) {
            v = v << 1 | (packed[bit >>> 3] >>> (7 - (bit & 7)) & 1);
        }
        return v;
    }

    /** The stored form {@code packed} was packed from. */
    static String unpack(byte[] packed) {
        char[] out = new char[1 + BINS];
        out[0] = MARK;
        for (int i = 0; i < BINS; i++) {
            out[1 + i] = (char) (DIGIT_ZERO + value(packed, i));
        }
        return new String(out);
    }
}
