package io.simdex.core;

/**
 * The one rule for document ids: 1..256 bytes of UTF-8 with no control character. The router
 * checks it at the public port and the shard services at the node port, which a caller may
 * reach without a router: an id far longer than the stores' average fills their maps by bytes.
 */
public final class Ids {
    public static final int MAX_BYTES = 256;

    private Ids() {
    }

    /** What is wrong with {@code id} in {@code field}, or null when it follows the rule. No allocation for a good id. */
    public static String problem(String field, String id) {
        if (id.isEmpty()) {
            return field + " is empty";
        }
        for (int i = 0; i < id.length(); i++) {
            if (Character.isISOControl(id.charAt(i))) {
                return field + " '" + Names.printable(id) + "' contains a control character at " + i;
            }
        }
        return utf8Bytes(id) > MAX_BYTES ? field + " is longer than " + MAX_BYTES + " bytes" : null;
    }

    /** The bytes of {@code s} in UTF-8, without encoding it. */
    public static int utf8Bytes(String s) {
        int bytes = 0;
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            // A surrogate is half of a 4-byte character; counted 2 even when unpaired (encoded as 1), so never too few.
            bytes += ch < 0x80 ? 1 : ch < 0x800 || Character.isSurrogate(ch) ? 2 : 3;
        }
        return bytes;
    }
}
