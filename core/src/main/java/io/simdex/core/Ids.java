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
        int bytes = 0;
        for (int i = 0; i < id.length(); i++) {
            char ch = id.charAt(i);
            if (Character.isISOControl(ch)) {
                return field + " '" + Names.printable(id) + "' contains a control character at " + i;
            }
            // A surrogate is half of a 4-byte character; counted 2 even when unpaired (encoded as 1), so never too few.
            bytes += ch < 0x80 ? 1 : ch < 0x800 || Character.isSurrogate(ch) ? 2 : 3;
        }
        return bytes > MAX_BYTES ? field + " is longer than " + MAX_BYTES + " bytes" : null;
    }
}
