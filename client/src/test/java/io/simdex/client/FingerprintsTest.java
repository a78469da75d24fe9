package io.simdex.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class FingerprintsTest {
    @Test
    void format_topBitSet_printsUnsignedHex() {
        assertEquals("ffffffffffffffff", Fingerprints.format(-1L));
        assertEquals("8000000000000000", Fingerprints.format(Long.MIN_VALUE));
    }

    @Test
    void format_smallValue_zeroPadsToSixteenDigits() {
        assertEquals("0000000000000000", Fingerprints.format(0));
        assertEquals("00000000000000ff", Fingerprints.format(255));
    }

    @Test
    void parse_sixteenHexDigits_readsUnsigned() {
        assertEquals(-1L, Fingerprints.parse("ffffffffffffffff"));
        assertEquals(-1L, Fingerprints.parse("FFFFFFFFFFFFFFFF"));
        assertEquals(0x0123456789abcdefL, Fingerprints.parse("0123456789abcdef"));
    }

    @Test
    void parse_hexPrefix_acceptsOneToSixteenDigits() {
        assertEquals(255, Fingerprints.parse("0xff"));
        assertEquals(Long.MIN_VALUE, Fingerprints.parse("0X8000000000000000"));
    }

    @Test
    void parse_unsignedDecimal_readsFullRange() {
        assertEquals(0, Fingerprints.parse("0"));
        assertEquals(12345, Fingerprints.parse("12345"));
        assertEquals(-1L, Fingerprints.parse("18446744073709551615"));
    }

    @Test
    void parse_sixteenDecimalDigits_readAsHex() {
        assertEquals(0x1234567890123456L, Fingerprints.parse("1234567890123456"));
    }

    @Test
    void parseOfFormat_randomValues_roundTrips() {
        SplittableRandom random = new SplittableRandom(42);
        for (int i = 0; i < 10_000; i++) {
            long fp = random.nextLong();
            assertEquals(fp, Fingerprints.parse(Fingerprints.format(fp)));
            String decimal = Long.toUnsignedString(fp);
            if (decimal.length() != Fingerprints.HEX_DIGITS) { // 16 decimal digits read as hex, by contract
                assertEquals(fp, Fingerprints.parse(decimal));
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "xyz", "0x", "0x11112222333344445", "fffffffffffffffg", "-1", "+5", " 12",
        "18446744073709551616", "1.5", "１２"})
    void parse_badText_rejectsNamingTheValue(String text) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Fingerprints.parse(text));
        assertTrue(e.getMessage().contains("'" + text + "'"), e.getMessage());
        assertTrue(e.getMessage().contains("expected 16 hex digits"), e.getMessage());
    }

    @Test
    void parse_null_rejectsWithMessage() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Fingerprints.parse(null));
        assertTrue(e.getMessage().contains("missing"), e.getMessage());
    }

    @Test
    void isHex_sixteenDigitsOrPrefixed_trueAndDecimalFalse() {
        assertTrue(Fingerprints.isHex("00000000000000ff"));
        assertTrue(Fingerprints.isHex("0x00000000000000ff"));
        assertFalse(Fingerprints.isHex("0xff"));
        assertFalse(Fingerprints.isHex("12345"));
        assertFalse(Fingerprints.isHex("some text here!!"));
    }
}
