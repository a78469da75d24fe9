package io.simdex.client;

/**
 * Reads and prints 64-bit SimHash fingerprints, which are unsigned: {@code ffffffffffffffff}
 * is the largest fingerprint, held in a {@code long} as -1.
 *
 * <p>Text forms accepted by {@link #parse}: exactly 16 hex digits; {@code 0x} followed by 1 to
 * 16 hex digits; or an unsigned decimal from 0 to 18446744073709551615. A string of exactly 16
 * decimal digits is read as hex, because the canonical form wins over the decimal reading.
 */
public final class Fingerprints {
    /** Hex digits in the canonical form. */
    public static final int HEX_DIGITS = 16;

    private static final String HEX_PREFIX = "0x";
    private static final String EXPECTED = "expected 16 hex digits, 0x-prefixed hex, or an unsigned decimal"
            + " up to 18446744073709551615";

    private Fingerprints() {
    }

    /**
     * The fingerprint written in {@code text} (see the class comment for the accepted forms;
     * case-insensitive, no surrounding whitespace).
     *
     * @throws IllegalArgumentException naming the text when it is none of the accepted forms
     */
    public static long parse(String text) {
        if (text == null) {
            throw new IllegalArgumentException("fingerprint is missing; " + EXPECTED);
        }
        if (text.length() == HEX_DIGITS && isHexDigits(text, 0)) {
            return Long.parseUnsignedLong(text, 16);
        }
        if (hasHexPrefix(text)) {
            int digits = text.length() - HEX_PREFIX.length();
            if (digits >= 1 && digits <= HEX_DIGITS && isHexDigits(text, HEX_PREFIX.length())) {
                return Long.parseUnsignedLong(text.substring(HEX_PREFIX.length()), 16);
            }
        } else if (!text.isEmpty() && isDecimalDigits(text)) {
            try {
                return Long.parseUnsignedLong(text);
            } catch (NumberFormatException tooLarge) {
                // Falls through to the common message: the value is above 2^64 - 1.
            }
        }
        throw new IllegalArgumentException("not a fingerprint: '" + text + "'; " + EXPECTED);
    }

    /**
     * True when {@code text} is a fingerprint in hex form: exactly 16 hex digits, optionally
     * after {@code 0x}. Decimal strings return false, so callers can tell a fingerprint column
     * from free text without misreading a number in the text.
     */
    public static boolean isHex(String text) {
        int start = hasHexPrefix(text) ? HEX_PREFIX.length() : 0;
        return text.length() - start == HEX_DIGITS && isHexDigits(text, start);
    }

    /** The canonical form: 16 lowercase hex digits, zero-padded, no prefix. */
    public static String format(long fingerprint) {
        String hex = Long.toHexString(fingerprint);
        return "0".repeat(HEX_DIGITS - hex.length()) + hex;
    }

    private static boolean hasHexPrefix(String text) {
        return text.regionMatches(true, 0, HEX_PREFIX, 0, HEX_PREFIX.length());
    }

    private static boolean isHexDigits(String text, int from) {
        for (int i = from; i < text.length(); i++) {
            char c = text.charAt(i);
            boolean hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
            if (!hex) {
                return false;
            }
        }
        return true;
    }

    private static boolean isDecimalDigits(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }
}
