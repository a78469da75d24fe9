package io.simdex.core;

/**
 * The one rule for the names a request gives to things a node keeps on disk (collections and
 * URL jobs): 1..64 characters of {@code [A-Za-z0-9_-]}. Each name becomes a directory under a
 * node's data directory, so the rule is what keeps {@code ..}, separators and dots (which mark
 * the node's own directories, such as {@code urls.jobs}) out of every path; the router checks it
 * at the public port and the shard services at the node port.
 */
public final class Names {
    public static final int MAX_LENGTH = 64;
    /** What {@link #problem} says a name must be. */
    public static final String RULE = "1.." + MAX_LENGTH + " characters of [A-Za-z0-9_-]";

    private Names() {
    }

    /**
     * Whether {@code s} follows the rule. A loop rather than a regex: every request names its
     * collection, and the Matcher it cost per call showed in allocation profiles of unary Query.
     */
    public static boolean isValid(String s) {
        if (s.isEmpty() || s.length() > MAX_LENGTH) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            if (!(ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || ch == '_' || ch == '-')) {
                return false;
            }
        }
        return true;
    }

    /** The message for a bad {@code name} in {@code field}: the field, the name (control characters escaped, at most 64 shown) and the rule. */
    public static String problem(String field, String name) {
        return field + " '" + printable(name) + "' must be " + RULE;
    }

    /** {@code s} cut to 64 code points, control characters as {@code \\uXXXX}: safe to put in a status message. */
    public static String printable(String s) {
        StringBuilder b = new StringBuilder();
        s.codePoints().limit(MAX_LENGTH).forEach(cp -> {
            if (Character.isISOControl(cp)) {
                b.append(String.format("\\u%04x", cp));
            } else {
                b.appendCodePoint(cp);
            }
        });
        return b.toString();
    }
}
