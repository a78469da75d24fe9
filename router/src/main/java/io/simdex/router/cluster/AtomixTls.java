package io.simdex.router.cluster;

import io.atomix.core.AtomixBuilder;
import io.simdex.server.tls.CertificatesInUse;
import io.simdex.server.tls.ReloadingCredentials;
import io.simdex.server.tls.TlsFiles;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Instant;
import java.util.Base64;
import java.util.List;

/**
 * Mutual TLS for Atomix messaging (membership, heartbeats and Raft), from the member's PEM files.
 * Atomix 3.1's NettyMessagingService takes TLS as key store and trust store files, which it
 * loads with the JVM's default type (PKCS12 on Java 17) and uses for both ends, requiring a
 * client certificate on its port; so the PEM certificate, key and cluster CA are written as two
 * PKCS12 files, readable by the owner only, under a random password made at every start. Each
 * also holds a marker entry that makes {@link ReloadingTlsProvider} answer Atomix's factories
 * with managers that read the PEM files again when they change: a renewed certificate reaches
 * the Atomix links as it reaches the gRPC ones. Atomix checks that a peer's chain leads to the
 * cluster CA, not the peer's host name.
 */
final class AtomixTls {
    private static final String KEY_HEADER = "-----BEGIN PRIVATE KEY-----";
    private static final String KEY_FOOTER = "-----END PRIVATE KEY-----";
    private static final List<String> KEY_ALGORITHMS = List.of("EC", "RSA", "Ed25519", "Ed448");

    private AtomixTls() {
    }

    /** Turns TLS on in {@code builder}, its stores written in {@code dir}. */
    static void apply(AtomixBuilder builder, TlsFiles files, Path dir) {
        char[] password = password();
        try {
            Files.createDirectories(dir);
            KeyStore keys = emptyStore();
            List<Certificate> chain = certificates(files.cert());
            keys.setKeyEntry("member", privateKey(files.key()), password, chain.toArray(new Certificate[0]));
            KeyStore trust = emptyStore();
            List<Certificate> cas = certificates(files.ca());
            for (int i = 0; i < cas.size(); i++) {
                trust.setCertificateEntry("ca-" + i, cas.get(i));
            }
            ReloadingCredentials reloading = ReloadingCredentials.load(files.cert(), files.key(), files.ca(), ReloadingCredentials.DEFAULT_CHECK);
            String marker = ReloadingTlsProvider.register(reloading);
            keys.setCertificateEntry(marker, chain.get(0));
            trust.setCertificateEntry(marker, cas.get(0));
            CertificatesInUse.track(CertificatesInUse.MEMBERSHIP, reloading::notAfter);
            Path keyStore = write(keys, password, dir.resolve("atomix-keys.p12"));
            Path trustStore = write(trust, password, dir.resolve("atomix-trust.p12"));
            String pw = new String(password);
            builder.withTlsEnabled()
                    .withKeyStore(keyStore.toString()).withKeyStorePassword(pw)
                    .withTrustStore(trustStore.toString()).withTrustStorePassword(pw);
        } catch (IOException e) {
            throw new UncheckedIOException("Atomix TLS: " + e.getMessage(), e);
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("Atomix TLS: cannot use " + files + ": " + e.getMessage(), e);
        }
    }

    private static List<Certificate> certificates(Path pem) throws IOException, GeneralSecurityException {
        try (InputStream in = Files.newInputStream(pem)) {
            List<Certificate> certs = List.copyOf(CertificateFactory.getInstance("X.509").generateCertificates(in));
            if (certs.isEmpty()) {
                throw new IllegalArgumentException(pem + " holds no PEM certificate");
            }
            return certs;
        }
    }

    /** A PKCS#8 PEM key of any algorithm Java knows; a PKCS#1 or SEC1 key is refused with the command that converts it. */
    static PrivateKey privateKey(Path pem) throws IOException {
        String text = Files.readString(pem, StandardCharsets.US_ASCII);
        int from = text.indexOf(KEY_HEADER);
        int to = text.indexOf(KEY_FOOTER);
        if (from < 0 || to < from) {
            throw new IllegalArgumentException(pem + " is not a PKCS#8 PEM key (BEGIN PRIVATE KEY); convert it with"
                    + " openssl pkcs8 -topk8 -nocrypt -in " + pem + " -out " + pem + ".pk8");
        }
        byte[] der = Base64.getMimeDecoder().decode(text.substring(from + KEY_HEADER.length(), to));
        for (String algorithm : KEY_ALGORITHMS) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
            } catch (GeneralSecurityException notThisOne) {
                // try the next
            }
        }
        throw new IllegalArgumentException(pem + ": a PKCS#8 key of none of " + KEY_ALGORITHMS);
    }

    private static KeyStore emptyStore() throws IOException, GeneralSecurityException {
        KeyStore s = KeyStore.getInstance(KeyStore.getDefaultType());
        s.load(null, null);
        return s;
    }

    private static Path write(KeyStore store, char[] password, Path file) throws IOException, GeneralSecurityException {
        Files.deleteIfExists(file);
        Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        try (OutputStream out = Files.newOutputStream(file, StandardOpenOption.TRUNCATE_EXISTING)) {
            store.store(out, password);
        }
        return file;
    }

    private static char[] password() {
        SecureRandom random = new SecureRandom();
        byte[] bytes = new byte[24];
        random.nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes).toCharArray();
    }
}
