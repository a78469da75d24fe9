package io.simdex.client;

import io.grpc.ChannelCredentials;
import io.grpc.TlsChannelCredentials;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;

/**
 * TLS for a client's channel: the server is trusted if the CA certificates in {@code ca} (PEM)
 * signed its certificate, or the system's trusted CAs when {@code ca} is null; with {@code cert}
 * and {@code key} (PEM, the key PKCS#8) the client presents a certificate too, for a server that
 * requires one ({@code --tls-client-ca}). The server's certificate must name the host of the
 * target address in its subjectAltName.
 */
public record ClientTls(Path ca, Path cert, Path key) {
    /** TLS trusting the system's CAs. */
    public static final ClientTls SYSTEM_ROOTS = new ClientTls(null, null, null);

    /** @throws IllegalArgumentException when only one of cert and key is given */
    public ClientTls {
        if ((cert == null) != (key == null)) {
            throw new IllegalArgumentException("a client certificate needs its key and the other way round: cert " + cert + ", key " + key);
        }
    }

    /** TLS trusting the CA certificates in {@code ca}. */
    public static ClientTls trusting(Path ca) {
        return new ClientTls(ca, null, null);
    }

    /** This TLS, presenting {@code cert} with {@code key} to the server. */
    public ClientTls withCertificate(Path cert, Path key) {
        return new ClientTls(ca, cert, key);
    }

    /** @throws UncheckedIOException naming the file that cannot be read */
    ChannelCredentials credentials() {
        TlsChannelCredentials.Builder b = TlsChannelCredentials.newBuilder();
        try {
            if (ca != null) {
                b.trustManager(ca.toFile());
            }
            if (cert != null) {
                b.keyManager(cert.toFile(), key.toFile());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read TLS files (CA " + ca + ", certificate " + cert + ", key " + key + "): "
                    + e.getMessage(), e);
        }
        return b.build();
    }
}
