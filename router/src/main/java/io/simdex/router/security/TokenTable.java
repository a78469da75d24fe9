package io.simdex.router.security;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * The grants of an auth file, looked up by token. The file holds SHA-256 hashes of tokens, never
 * tokens; a presented token is hashed and compared with every line's hash in constant time
 * ({@link MessageDigest#isEqual}), all lines every time, so timing tells nothing about how close
 * a guess came or which line matched.
 *
 * <pre>
 * # ROLE   COLLECTION  sha256:HEX (64 hex digits: the SHA-256 of the token's UTF-8 bytes)
 * admin    *           sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08
 * write    news        sha256:...
 * </pre>
 * Blank lines and lines starting with {@code #} are skipped. A token on several lines has every
 * line's grant.
 */
public final class TokenTable {
    static final String HASH_PREFIX = "sha256:";
    private static final int HASH_BYTES = 32;
    private static final ThreadLocal<MessageDigest> SHA256 = ThreadLocal.withInitial(TokenTable::sha256);

    private final byte[][] hashes;
    private final Grant[] grants;

    private TokenTable(List<byte[]> hashes, List<Grant> grants) {
        this.hashes = hashes.toArray(new byte[0][]);
        this.grants = grants.toArray(new Grant[0]);
    }

    /**
     * Parses an auth file's lines.
     *
     * @throws IllegalArgumentException naming {@code source}, the line number and what is wrong
     */
    public static TokenTable parse(List<String> lines, String source) {
        List<byte[]> hashes = new ArrayList<>();
        List<Grant> grants = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            try {
                String[] f = line.split("\\s+");
                if (f.length != 3) {
                    throw new IllegalArgumentException("expected ROLE COLLECTION sha256:HEX, found " + f.length + " fields");
                }
                grants.add(new Grant(Role.parse(f[0]), f[1]));
                hashes.add(hash(f[2]));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(source + " line " + (i + 1) + ": " + e.getMessage(), e);
            }
        }
        return new TokenTable(hashes, grants);
    }

    private static byte[] hash(String field) {
        if (!field.startsWith(HASH_PREFIX)) {
            throw new IllegalArgumentException("'" + field + "' does not start with " + HASH_PREFIX);
        }
        String hex = field.substring(HASH_PREFIX.length());
        if (hex.length() != 2 * HASH_BYTES) {
            throw new IllegalArgumentException("the hash has " + hex.length() + " hex digits, not " + 2 * HASH_BYTES);
        }
        try {
            return HexFormat.of().parseHex(hex);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("'" + hex + "' is not hexadecimal");
        }
    }

    /** The grants of {@code token}; empty when no line holds its hash. */
    public List<Grant> grantsOf(String token) {
        MessageDigest sha = SHA256.get();
        byte[] presented = sha.digest(token.getBytes(StandardCharsets.UTF_8));
        List<Grant> found = List.of();
        for (int i = 0; i < hashes.length; i++) {
            if (MessageDigest.isEqual(hashes[i], presented)) {
                found = found.isEmpty() ? new ArrayList<>(2) : found;
                found.add(grants[i]);
            }
        }
        return found;
    }

    public int size() {
        return grants.length;
    }

    /** The auth-file form of {@code token}'s hash: {@code sha256:} and 64 lower-case hex digits. */
    public static String hashOf(String token) {
        return HASH_PREFIX + HexFormat.of().formatHex(sha256().digest(token.getBytes(StandardCharsets.UTF_8)));
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }
}
