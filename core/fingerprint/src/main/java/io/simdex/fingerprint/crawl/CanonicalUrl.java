package io.simdex.fingerprint.crawl;

import java.net.IDN;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The canonical form of an absolute URL, so that spellings of one address compare equal in a
 * crawl job's seen-set: RFC 3986's syntax-based normalisation (section 6.2.2) and the
 * scheme-based one of http(s) (6.2.3), as crawlers' URL normalisers do.
 * <ul>
 *   <li>scheme and host in lower case, an internationalised host in its ASCII (punycode) form;</li>
 *   <li>the scheme's default port (http and ws 80, https and wss 443, ftp 21) and an empty port removed;</li>
 *   <li>the fragment removed (it never reaches the server), an empty query ("?") removed;</li>
 *   <li>an empty path as "/", dot segments resolved ({@code /a/./b/../c} is {@code /a/c});</li>
 *   <li>percent-escapes with upper-case digits, those of unreserved characters
 *       ({@code A-Z a-z 0-9 - . _ ~}) decoded, and every character a URI may not hold
 *       (spaces, non-ASCII letters as UTF-8, a {@code %} that begins no escape) escaped.</li>
 * </ul>
 * Query parameters keep their order and user info is kept: sites differ in whether either
 * matters. A trailing slash is kept too ({@code /a} and {@code /a/} are different resources).
 *
 * <p>Written here rather than taken from crawler-commons: its {@code BasicURLNormalizer} (1.4)
 * turned a path of Han characters into {@code %E?%B7...}, guesses a scheme for text that is no
 * URL ({@code "not a url"} becomes {@code http://not a url/}) and drops user info.
 */
public final class CanonicalUrl {
    private static final Map<String, Integer> DEFAULT_PORTS = Map.of("http", 80, "https", 443, "ws", 80, "wss", 443, "ftp", 21);
    private static final char[] HEX = "0123456789ABCDEF".toCharArray();
    /** Characters a path keeps as they are besides unreserved ones: sub-delims, ':', '@', '/'. */
    private static final String PATH_CHARS = "!$&'()*+,;=:@/";
    /** A query's: those of a path and '?'. */
    private static final String QUERY_CHARS = PATH_CHARS + "?";
    /** User info's: sub-delims and ':'. */
    private static final String USER_CHARS = "!$&'()*+,;=:";

    private CanonicalUrl() {
    }

    /**
     * The canonical form of {@code url} (surrounding white space ignored).
     *
     * @throws IllegalArgumentException saying what is missing or wrong, when {@code url} is not
     *         an absolute URL with a host ({@code scheme://host...})
     */
    public static String of(String url) {
        String s = url.strip();
        int colon = schemeEnd(s);
        String scheme = s.substring(0, colon).toLowerCase(Locale.ROOT);
        if (!s.startsWith("//", colon + 1)) {
            throw new IllegalArgumentException("is not a URL with a host (" + scheme + "://host/...)");
        }
        int authorityStart = colon + 3;
        int authorityEnd = indexOfAny(s, "/?#", authorityStart);
        int queryStart = indexOfAny(s, "?#", authorityEnd);
        int fragmentStart = s.indexOf('#', queryStart);
        if (fragmentStart < 0) {
            fragmentStart = s.length();
        }
        StringBuilder out = new StringBuilder(s.length() + 8).append(scheme).append("://");
        authority(s.substring(authorityStart, authorityEnd), scheme, out);
        String path = escapes(s.substring(authorityEnd, queryStart), PATH_CHARS);
        out.append(path.isEmpty() ? "/" : withoutDotSegments(path));
        if (queryStart < fragmentStart && s.charAt(queryStart) == '?' && queryStart + 1 < fragmentStart) {
            out.append('?').append(escapes(s.substring(queryStart + 1, fragmentStart), QUERY_CHARS));
        }
        return out.toString();
    }

    /** Where the scheme's ':' is; the scheme is a letter, then letters, digits, '+', '-' or '.'. */
    private static int schemeEnd(String s) {
        int colon = s.indexOf(':');
        if (colon <= 0) {
            throw new IllegalArgumentException("has no scheme (http://, https://, ...)");
        }
        for (int i = 0; i < colon; i++) {
            char c = s.charAt(i);
            boolean letter = c < 128 && Character.isLetter(c);
            if (!(letter || i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'))) {
                throw new IllegalArgumentException("has no scheme (http://, https://, ...)");
            }
        }
        return colon;
    }

    private static void authority(String authority, String scheme, StringBuilder out) {
        int at = authority.lastIndexOf('@');
        if (at >= 0) {
            out.append(escapes(authority.substring(0, at), USER_CHARS)).append('@');
        }
        String hostPort = authority.substring(at + 1);
        int portColon;
        String host;
        if (hostPort.startsWith("[")) {
            int close = hostPort.indexOf(']');
            if (close < 0) {
                throw new IllegalArgumentException("has an IPv6 host without its closing ']'");
            }
            host = hostPort.substring(0, close + 1).toLowerCase(Locale.ROOT);
            portColon = close + 1 < hostPort.length() ? close + 1 : -1;
            if (portColon >= 0 && hostPort.charAt(portColon) != ':') {
                throw new IllegalArgumentException("has text after its IPv6 host: " + hostPort);
            }
        } else {
            portColon = hostPort.lastIndexOf(':');
            host = regName(portColon < 0 ? hostPort : hostPort.substring(0, portColon));
        }
        if (host.isEmpty()) {
            throw new IllegalArgumentException("has no host");
        }
        out.append(host);
        if (portColon >= 0) {
            port(hostPort.substring(portColon + 1), scheme, out);
        }
    }

    /** A registered name (or IPv4 address) in lower case, internationalised names in punycode. */
    private static String regName(String host) {
        for (int i = 0; i < host.length(); i++) {
            char c = host.charAt(i);
            if (c <= ' ' || "\"<>\\^`{|}%".indexOf(c) >= 0) {
                throw new IllegalArgumentException("has a host with '" + (c <= ' ' ? "\\u%04x".formatted((int) c) : String.valueOf(c)) + "' in it: " + host);
            }
        }
        try {
            return IDN.toASCII(host, IDN.ALLOW_UNASSIGNED).toLowerCase(Locale.ROOT);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("has a host that is no domain name: " + host + " (" + e.getMessage() + ")");
        }
    }

    private static void port(String digits, String scheme, StringBuilder out) {
        if (digits.isEmpty()) {
            return;
        }
        int port = 0;
        for (int i = 0; i < digits.length(); i++) {
            char c = digits.charAt(i);
            if (c < '0' || c > '9' || (port = port * 10 + (c - '0')) > 65535) {
                throw new IllegalArgumentException("has a port that is not a number 0..65535: " + digits);
            }
        }
        if (!Integer.valueOf(port).equals(DEFAULT_PORTS.get(scheme))) {
            out.append(':').append(port);
        }
    }

    /**
     * {@code part} with its percent-escapes normalised: an unreserved character's decoded, the
     * others' digits in upper case; every character neither unreserved nor in {@code keep}
     * escaped (as UTF-8), and so is a '%' that begins no escape.
     */
    private static String escapes(String part, String keep) {
        StringBuilder out = new StringBuilder(part.length());
        for (int i = 0; i < part.length(); ) {
            char c = part.charAt(i);
            if (c == '%' && i + 2 < part.length() && hex(part.charAt(i + 1)) >= 0 && hex(part.charAt(i + 2)) >= 0) {
                int b = hex(part.charAt(i + 1)) << 4 | hex(part.charAt(i + 2));
                if (unreserved(b)) {
                    out.append((char) b);
                } else {
                    escape(b, out);
                }
                i += 3;
            } else if (c < 128 && (unreserved(c) || keep.indexOf(c) >= 0)) {
                out.append(c);
                i++;
            } else {
                int cp = part.codePointAt(i);
                for (byte b : new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8)) {
                    escape(b & 0xff, out);
                }
                i += Character.charCount(cp);
            }
        }
        return out.toString();
    }

    private static boolean unreserved(int c) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~';
    }

    private static int hex(char c) {
        return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    }

    private static void escape(int b, StringBuilder out) {
        out.append('%').append(HEX[b >>> 4]).append(HEX[b & 0xf]);
    }

    /** RFC 3986's remove_dot_segments (5.2.4) of an absolute path: "." dropped, ".." drops the segment before it. */
    private static String withoutDotSegments(String path) {
        if (!path.contains(".")) {
            return path;
        }
        String[] parts = path.split("/", -1);
        List<String> kept = new ArrayList<>(parts.length);
        for (int i = 1; i < parts.length; i++) {
            boolean last = i == parts.length - 1;
            if (parts[i].equals(".") || parts[i].equals("..")) {
                if (parts[i].equals("..") && !kept.isEmpty()) {
                    kept.remove(kept.size() - 1);
                }
                if (last) {
                    kept.add("");
                }
            } else {
                kept.add(parts[i]);
            }
        }
        return "/" + String.join("/", kept);
    }

    private static int indexOfAny(String s, String chars, int from) {
        for (int i = from; i < s.length(); i++) {
            if (chars.indexOf(s.charAt(i)) >= 0) {
                return i;
            }
        }
        return s.length();
    }
}
