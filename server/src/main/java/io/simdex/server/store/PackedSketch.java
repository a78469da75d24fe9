package io.simdex.server.store;

/**
 * The packed form of a stored sketch: its bins' 6-bit values, four in three bytes.
 *
 * <pre>
 * stored form:  NUL c0 c1 c2 c3 ...     ci = '0' + vi, vi in 0..63, bins a multiple of 4
 * packed:       byte 3j..3j+2 = v(4j) v(4j+1) v(4j+2) v(4j+3), 6 bits each, most significant first
 * </pre>
 *
 * A string is packed only if it is exactly of that form, so {@code unpack(pack(s)).equals(s)}
 * whenever {@code pack(s)} is not null; other values (short texts, sketches of other shapes)
 * stay strings.
 */
final class PackedSketch {
    /** First character of a stored sketch (the router's {@code SketchRule.MARK}). */
    static final char MARK = '\u0000';
    private static final char DIGIT_ZERO = '0';
    private static final int BITS = 6;
    private static final int VALUE_MASK = (1 << BITS) - 1;
    private static final int BINS_PER_GROUP = 4;
    private static final int BYTES_PER_GROUP = 3;
    /** Packed bytes of the default sketch (60 bins). */
    static final int DEFAULT_BYTES = 60 / BINS_PER_GROUP * BYTES_PER_GROUP;

    private PackedSketch() {
    }

    /** The packed form of {@code stored}; null if it is not a sketch of the form above. */
    static byte[] pack(String stored) {
        int bins = stored.length() - 1;
        if (bins <= 0 || bins % BINS_PER_GROUP != 0 || stored.charAt(0) != MARK) {
            return null;
        }
        byte[] out = new byte[bins / BINS_PER_GROUP * BYTES_PER_GROUP];
        for (int g = 0; g < bins / BINS_PER_GROUP; g++) {
            int group = 0;
            for (int k = 0; k < BINS_PER_GROUP; k++) {
                int v = stored.charAt(1 + g * BINS_PER_GROUP + k) - DIGIT_ZERO;
                if (v < 0 || v > VALUE_MASK) {
                    return null;
                }
                group = group << BITS | v;
            }
            out[g * BYTES_PER_GROUP] = (byte) (group >>> 16);
            out[g * BYTES_PER_GROUP + 1] = (byte) (group >>> 8);
            out[g * BYTES_PER_GROUP + 2] = (byte) group;
        }
        return out;
    }

    /** The stored form {@code packed} was packed from. */
    static String unpack(byte[] packed) {
        int groups = packed.length / BYTES_PER_GROUP;
        char[] out = new char[1 + groups * BINS_PER_GROUP];
        out[0] = MARK;
        for (int g = 0; g < groups; g++) {
            int group = (packed[g * BYTES_PER_GROUP] & 0xFF) << 16 | (packed[g * BYTES_PER_GROUP + 1] & 0xFF) << 8
                    | packed[g * BYTES_PER_GROUP + 2] & 0xFF;
            for (int k = BINS_PER_GROUP - 1; k >= 0; k--) {
                out[1 + g * BINS_PER_GROUP + k] = (char) (DIGIT_ZERO + (group & VALUE_MASK));
                group >>>= BITS;
            }
        }
        return new String(out);
    }
}
