package io.simdex.client.tls;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * A throw-away CA and certificates made with the openssl command line, the same commands the
 * README's Security section gives: a CA, a server certificate for localhost and 127.0.0.1, a
 * client certificate it signed, and a client certificate and a server certificate of another CA,
 * which also certifies the first client's key.
 * EC P-256 keys, PKCS#8.
 */
public final class TestCertificates {
    private static final Path OPENSSL = Path.of("/usr/bin/openssl");

    public final Path ca;
    public final Path serverCert;
    public final Path serverKey;
    public final Path clientCert;
    public final Path clientKey;
    /** The client's key certified anew by the other CA, as a renewal that keeps the key. */
    public final Path clientCertByOtherCa;
    public final Path strangerCert;
    public final Path strangerKey;
    /** A server certificate for localhost and 127.0.0.1 that the other CA signed. */
    public final Path otherServerCert;
    public final Path otherServerKey;
    public final Path otherCa;

    private TestCertificates(Path dir) {
        ca = dir.resolve("ca.crt");
        serverCert = dir.resolve("server.crt");
        serverKey = dir.resolve("server.key");
        clientCert = dir.resolve("client.crt");
        clientKey = dir.resolve("client.key");
        clientCertByOtherCa = dir.resolve("client-other-ca.crt");
        strangerCert = dir.resolve("stranger.crt");
        strangerKey = dir.resolve("stranger.key");
        otherServerCert = dir.resolve("other-server.crt");
        otherServerKey = dir.resolve("other-server.key");
        otherCa = dir.resolve("other-ca.crt");
    }

    /** Makes them in {@code dir}; the test is skipped, saying why, where openssl is not installed. */
    public static TestCertificates make(Path dir) throws IOException, InterruptedException {
        assumeTrue(Files.isExecutable(OPENSSL), "TLS tests need " + OPENSSL + " to make their certificates");
        TestCertificates c = new TestCertificates(dir);
        c.ca(dir, "ca", "simdex test CA");
        c.ca(dir, "other-ca", "another CA");
        Files.writeString(dir.resolve("server.ext"), "subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth\n");
        Files.writeString(dir.resolve("client.ext"), "extendedKeyUsage=clientAuth\n");
        c.signed(dir, "server", "localhost", "ca", "server.ext");
        c.signed(dir, "client", "crawler", "ca", "client.ext");
        c.signed(dir, "stranger", "stranger", "other-ca", "client.ext");
        openssl(dir, "x509", "-req", "-in", "client.csr", "-CA", "other-ca.crt", "-CAkey", "other-ca.key", "-CAcreateserial",
                "-out", "client-other-ca.crt", "-days", "2", "-extfile", "client.ext");
        // Valid a day longer than the first, so the two expire at different times.
        c.signed(dir, "other-server", "localhost", "other-ca", "server.ext", 3);
        return c;
    }

    private void ca(Path dir, String name, String cn) throws IOException, InterruptedException {
        openssl(dir, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                "-keyout", name + ".key", "-out", name + ".crt", "-days", "2", "-subj", "/CN=" + cn,
                "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign");
    }

    private void signed(Path dir, String name, String cn, String ca, String ext) throws IOException, InterruptedException {
        signed(dir, name, cn, ca, ext, 2);
    }

    private void signed(Path dir, String name, String cn, String ca, String ext, int days) throws IOException, InterruptedException {
        openssl(dir, "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                "-keyout", name + ".key", "-out", name + ".csr", "-subj", "/CN=" + cn);
        openssl(dir, "x509", "-req", "-in", name + ".csr", "-CA", ca + ".crt", "-CAkey", ca + ".key", "-CAcreateserial",
                "-out", name + ".crt", "-days", Integer.toString(days), "-extfile", ext);
    }

    /** When the certificate in PEM file {@code cert} expires. */
    public static Instant notAfter(Path cert) throws IOException, GeneralSecurityException {
        try (InputStream in = Files.newInputStream(cert)) {
            return ((X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in)).getNotAfter().toInstant();
        }
    }

    private static void openssl(Path dir, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(OPENSSL.toString()));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IOException(String.join(" ", command) + " failed:\n" + output);
        }
    }
}
