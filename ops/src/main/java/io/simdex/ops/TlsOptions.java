package io.simdex.ops;

import io.simdex.router.config.Settings;
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

    /** The listening port's protection from settings tls.cert, tls.key, tls.client.ca, insecure and auth.file if the process reads it; reads every file now. */
    static ServerSecurity security(Settings s) {
        Path authFile = s.schema().knows("auth.file") ? s.path("auth.file") : null;
        return ServerSecurity.builder().tls(s.path("tls.cert"), s.path("tls.key")).clientCa(s.path("tls.client.ca")).authFile(authFile)
                .insecure(s.bool("insecure")).build();
    }
}
