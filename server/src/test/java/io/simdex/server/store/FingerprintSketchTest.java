package io.simdex.server.store;

import io.simdex.core.text.MinHashSketch;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

class FingerprintSketchTest {
    /** The packed layout written bit by bit: bin 0 first, each value's most significant bit first. */
    private static byte[] packedBitByBit(int[] values) {
        byte[] out = new byte[FingerprintSketch.BYTES];
        for (int bin = 0; bin < values.length; bin++) {
            for (int b = 0; b < FingerprintSketch.BITS; b++) {
                int bit = bin * FingerprintSketch.BITS + b;
                if ((values[bin] >>> (FingerprintSketch.BITS - 1 - b) & 1) != 0) {
                    out[bit >>> 3] |= (byte) (0x80 >>> (bit & 7));
                }
            }
        }
        return out;
    }

    private static String stored(int[] values) {
        StringBuilder b = new StringBuilder().append(FingerprintSketch.MARK);
        for (int v : values) {
            b.append((char) ('0' + v));
        }
        return b.toString();
    }

    @Test
    void pack_isTheBitByBitLayout_andUnpacksToWhatWasStored() {
        SplittableRandom rnd = new SplittableRandom(11);
        for (int round = 0; round < 2_000; round++) {
            int[] values = new int[FingerprintSketch.BINS];
            for (int i = 0; i < values.length; i++) {
                values[i] = round == 0 ? 31 : round == 1 ? 0 : rnd.nextInt(32);
            }
            String stored = stored(values);
            byte[] packed = FingerprintSketch.pack(stored);
            assertArrayEquals(packedBitByBit(values), packed, "round " + round);
            assertEquals(stored, FingerprintSketch.unpack(packed));
            for (int i = 0; i < values.length; i++) {
                assertEquals(values[i], FingerprintSketch.value(packed, i));
            }
            MinHashSketch sketch = MinHashSketch.parse(stored.substring(1), FingerprintSketch.BITS);
            assertArrayEquals(packed, FingerprintSketch.pack(sketch), "from a sketch, round " + round);
        }
    }

    @Test
    void pack_ofAnotherForm_isNull() {
        int[] values = new int[FingerprintSketch.BINS];
        String stored = stored(values);
        assertNull(FingerprintSketch.pack(stored.substring(1)));
        assertNull(FingerprintSketch.pack(stored + "0"));
        assertNull(FingerprintSketch.pack(stored.substring(0, FingerprintSketch.BINS) + (char) ('0' + 32)));
    }
}
