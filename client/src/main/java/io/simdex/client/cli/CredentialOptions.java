package io.simdex.client.cli;

import io.simdex.client.ClientOptions;
import io.simdex.client.ClientTls;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * TLS and token flags of every command that calls a server. The environment variables are the
 * Python client's: SIMDEX_TLS_CA and SIMDEX_TOKEN (a token in the environment stays out of
 * {@code ps} listings, unlike {@code --token}).
 */
public final class CredentialOptions {
    @Option(names = "--tls", description = "Use TLS, trusting the system's CAs (implied by --tls-ca).")
    boolean tls;

    @Option(names = "--tls-ca", paramLabel = "FILE", defaultValue = "${env:SIMDEX_TLS_CA}",
            description = "Use TLS, trusting the CA certificates in this PEM file (default: $SIMDEX_TLS_CA; without either: plaintext).")
    Path tlsCa;

    @Option(names = "--tls-cert", paramLabel = "FILE",
            description = "Client certificate (PEM) for a server that requires one; with --tls-key.")
    Path tlsCert;

    @Option(names = "--tls-key", paramLabel = "FILE", description = "The client certificate's private key (PEM, PKCS#8).")
    Path tlsKey;

    @Option(names = "--token", paramLabel = "TOKEN", defaultValue = "${env:SIMDEX_TOKEN}",
            description = "Sent with every call as 'authorization: Bearer TOKEN' (default: $SIMDEX_TOKEN).")
    String token;

    /**
     * {@code options} with these flags' TLS and token.
     *
     * @throws IllegalArgumentException for a client certificate without key or the other way round
     */
    public ClientOptions applyTo(ClientOptions options) {
        ClientTls t = null;
        if (tls || tlsCa != null || tlsCert != null || tlsKey != null) {
            t = new ClientTls(tlsCa, tlsCert, tlsKey);
        }
        String bearer = token == null || token.isBlank() ? null : token.strip();
        return options.withTls(t).withToken(bearer);
    }
}
