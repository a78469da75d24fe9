package io.simdex.server.tls;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A member's TLS identity and the CA it trusts, as PEM files: {@code cert} the certificate
 * chain (leaf first), {@code key} its private key in PKCS#8 ({@code BEGIN PRIVATE KEY}, what
 * {@code openssl genpkey} writes), {@code ca} the CA certificates that sign the peers.
 */
public record TlsFiles(Path cert, Path key, Path ca) {
    /** @throws IllegalArgumentException naming a file that is missing or unreadable */
    public TlsFiles {
        requireReadable("certificate", cert);
        requireReadable("key", key);
        requireReadable("CA", ca);
    }

    static void requireReadable(String what, Path file) {
        if (file == null) {
            throw new IllegalArgumentException("TLS " + what + " file is required");
        }
        if (!Files.isReadable(file)) {
            throw new IllegalArgumentException("TLS " + what + " file " + file + " does not exist or is not readable");
        }
    }
}
