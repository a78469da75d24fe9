package io.simdex.ops;

import io.simdex.router.security.ServerSecurity;
import picocli.CommandLine.Option;

import java.nio.file.Path;

/** The TLS flags of a process that listens: its certificate, whom it requires certificates of, and plaintext beyond loopback. */
final class TlsOptions {
    @Option(names = "--tls-cert", paramLabel = "FILE", description = "Serve TLS with this certificate chain (PEM); with --tls-key.")
    Path cert;

    @Option(names = "--tls-key", paramLabel = "FILE", description = "The certificate's private key (PEM, PKCS#8: BEGIN PRIVATE KEY).")
    Path key;

    @Option(names = "--tls-client-ca", paramLabel = "FILE",
            description = "Require client certificates signed by the CA certificates in this PEM file.")
    Path clientCa;

    @Option(names = "--insecure", description = "Serve plaintext on an address beyond loopback, on purpose (without TLS the default is loopback only).")
    boolean insecure;

    /** The flags given, as settings tls.cert, tls.key, tls.client.ca and insecure. */
    void addTo(ConfigOptions.Flags flags) {
        flags.put("tls.cert", cert, "--tls-cert").put("tls.key", key, "--tls-key").put("tls.client.ca", clientCa, "--tls-client-ca")
                .put("insecure", insecure ? "true" : null, "--insecure");
    }

    /** These flags, with tokens from {@code authFile} (null: none); reads every file now. */
    ServerSecurity security(Path authFile) {
        return ServerSecurity.builder().tls(cert, key).clientCa(clientCa).authFile(authFile).insecure(insecure).build();
    }
}
