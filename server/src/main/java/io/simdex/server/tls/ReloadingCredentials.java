package io.simdex.server.tls;

import io.grpc.util.AdvancedTlsX509KeyManager;
import io.grpc.util.AdvancedTlsX509TrustManager;
import io.grpc.util.CertificateUtils;
import io.simdex.core.io.Cadence;
import io.simdex.core.io.FileStamp;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;
import javax.net.ssl.X509ExtendedTrustManager;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * A TLS identity (a PEM certificate chain, leaf first, and its PKCS#8 key) and, optionally, the
 * PEM CA certificates that sign the peers, read again when their files change: certificates are
 * renewed while the process runs, and a restart of every process for each renewal is an outage
 * of the embedded default.
 *
 * <p>As the auth file is: at most once per check interval, the handshake that finds the interval
 * over compares each file's modification time, size and identity (a file replaced by {@code mv},
 * or a moved symlink, counts) with what was last read, and reads the ones that differ. No thread
 * of its own, nothing to close. A changed identity is taken only whole: its key must be the
 * certificate's, so that a key and a certificate replaced one after the other, looked at in
 * between, are not served as a pair; until then, or while a file is unreadable or malformed, the
 * previous ones stay, logged once per change. At start each of those is an error. Handshakes
 * after a change present the new certificate and trust the new CAs; connections open keep what
 * they agreed.
 */
public final class ReloadingCredentials {
    /** How often a running process looks at the files. */
    public static final Duration DEFAULT_CHECK = Duration.ofSeconds(1);
    private static final Logger LOG = LoggerFactory.getLogger(ReloadingCredentials.class);

    private final Path cert;
    private final Path key;
    private final Path ca;
    private final Cadence checks;
    private final AdvancedTlsX509KeyManager identity = new AdvancedTlsX509KeyManager();
    private final AdvancedTlsX509TrustManager trust;
    private final KeyManager keyManager = new KeyManager();
    private final TrustManager trustManager;
    /** What was last read, or last failed to be (so a failure is logged once). */
    private List<FileStamp> identitySeen;
    private FileStamp caSeen;

    private ReloadingCredentials(Path cert, Path key, Path ca, Duration checkEvery) {
        this.cert = cert;
        this.key = key;
        this.ca = ca;
        this.checks = new Cadence(checkEvery);
        try {
            this.trust = ca == null ? null : AdvancedTlsX509TrustManager.newBuilder().build();
        } catch (CertificateException e) {
            throw new IllegalStateException(e);
        }
        this.trustManager = ca == null ? null : new TrustManager();
    }

    /**
     * Reads {@code cert} and {@code key}, and {@code ca} unless it is null, now, and again when
     * they change, looking every {@code checkEvery}.
     *
     * @throws UncheckedIOException naming a file that cannot be read or parsed, or a key that is not the certificate's
     */
    public static ReloadingCredentials load(Path cert, Path key, Path ca, Duration checkEvery) {
        ReloadingCredentials c = new ReloadingCredentials(Objects.requireNonNull(cert), Objects.requireNonNull(key), ca, checkEvery);
        try {
            c.identitySeen = c.stampOfIdentity();
            c.readIdentity();
            if (ca != null) {
                c.caSeen = FileStamp.of(ca);
                c.readCa();
            }
        } catch (IOException | GeneralSecurityException e) {
            throw new UncheckedIOException(new IOException(e.getMessage(), e));
        }
        return c;
    }

    /** Presents the identity; for TlsServerCredentials and TlsChannelCredentials. */
    public javax.net.ssl.KeyManager keyManager() {
        return keyManager;
    }

    /** Trusts the peers the CA signs (with host name checks where this side is the client); null without a CA. */
    public javax.net.ssl.TrustManager trustManager() {
        return trustManager;
    }

    /**
     * When the certificate presented expires: the one the next handshake presents (the files are
     * looked at first if the check interval is over).
     */
    public Instant notAfter() {
        checkIfDue();
        return identity.getCertificateChain("default")[0].getNotAfter().toInstant();
    }

    /** Looks at the files if the check interval is over. */
    private void checkIfDue() {
        if (checks.due()) {
            reloadIfChanged();
        }
    }

    /** Reads again what changed since it was last read; keeps what it had on failure. */
    synchronized void reloadIfChanged() {
        List<FileStamp> now = stampOfIdentity();
        if (!now.equals(identitySeen)) {
            identitySeen = now;
            try {
                readIdentity();
                LOG.info("TLS certificate {} (key {}) read again: {}", cert, key, describe(identity.getCertificateChain("default")[0]));
            } catch (IOException | GeneralSecurityException | RuntimeException e) {
                LOG.warn("TLS certificate {} or key {} changed but cannot be used, the previous ones stay: {}", cert, key, e.getMessage());
            }
        }
        if (ca != null) {
            FileStamp caNow = FileStamp.of(ca);
            if (!caNow.equals(caSeen)) {
                caSeen = caNow;
                try {
                    int n = readCa();
                    LOG.info("TLS CA file {} read again: {} certificate(s)", ca, n);
                } catch (IOException | GeneralSecurityException | RuntimeException e) {
                    LOG.warn("TLS CA file {} changed but cannot be used, the previous CAs stay: {}", ca, e.getMessage());
                }
            }
        }
    }

    private List<FileStamp> stampOfIdentity() {
        return List.of(FileStamp.of(cert), FileStamp.of(key));
    }

    private void readIdentity() throws IOException, GeneralSecurityException {
        X509Certificate[] chain;
        try (InputStream in = Files.newInputStream(cert)) {
            chain = CertificateUtils.getX509Certificates(in);
        }
        if (chain.length == 0) {
            throw new GeneralSecurityException(cert + " holds no certificate");
        }
        PrivateKey k;
        try (InputStream in = Files.newInputStream(key)) {
            k = CertificateUtils.getPrivateKey(in);
        } catch (IOException | GeneralSecurityException | RuntimeException e) {
            throw new GeneralSecurityException("cannot read the private key " + key + " (PEM, PKCS#8): " + e.getMessage(), e);
        }
        requirePair(chain[0], k);
        identity.updateIdentityCredentials(chain, k);
    }

    private int readCa() throws IOException, GeneralSecurityException {
        X509Certificate[] cas;
        try (InputStream in = Files.newInputStream(ca)) {
            cas = CertificateUtils.getX509Certificates(in);
        }
        if (cas.length == 0) {
            throw new GeneralSecurityException(ca + " holds no certificate");
        }
        trust.updateTrustCredentials(cas);
        return cas.length;
    }

    /** Signs a test message with {@code k} and verifies it with the certificate's public key. */
    private void requirePair(X509Certificate leaf, PrivateKey k) throws GeneralSecurityException {
        String algorithm = switch (k.getAlgorithm()) {
            case "RSA" -> "SHA256withRSA";
            case "EC" -> "SHA256withECDSA";
            case "Ed25519", "EdDSA" -> "Ed25519";
            default -> throw new GeneralSecurityException("key " + key + " is " + k.getAlgorithm() + ": RSA, EC or Ed25519 are taken");
        };
        byte[] message = "simdex: is this key the certificate's?".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        Signature sign = Signature.getInstance(algorithm);
        sign.initSign(k);
        sign.update(message);
        byte[] signature = sign.sign();
        Signature verify = Signature.getInstance(algorithm);
        verify.initVerify(leaf.getPublicKey());
        verify.update(message);
        if (!verify.verify(signature)) {
            throw new GeneralSecurityException("key " + key + " is not the key of certificate " + cert + " (" + describe(leaf) + ")");
        }
    }

    private static String describe(X509Certificate c) {
        return c.getSubjectX500Principal().getName() + ", valid until " + c.getNotAfter().toInstant();
    }

    /** The identity, looked at again as a handshake asks for it. */
    private final class KeyManager extends X509ExtendedKeyManager {
        @Override
        public String[] getClientAliases(String keyType, Principal[] issuers) {
            return identity.getClientAliases(keyType, issuers);
        }

        @Override
        public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
            checkIfDue();
            return identity.chooseClientAlias(keyType, issuers, socket);
        }

        @Override
        public String chooseEngineClientAlias(String[] keyType, Principal[] issuers, SSLEngine engine) {
            checkIfDue();
            return identity.chooseEngineClientAlias(keyType, issuers, engine);
        }

        @Override
        public String[] getServerAliases(String keyType, Principal[] issuers) {
            return identity.getServerAliases(keyType, issuers);
        }

        @Override
        public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
            checkIfDue();
            return identity.chooseServerAlias(keyType, issuers, socket);
        }

        @Override
        public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
            checkIfDue();
            return identity.chooseEngineServerAlias(keyType, issuers, engine);
        }

        @Override
        public X509Certificate[] getCertificateChain(String alias) {
            return identity.getCertificateChain(alias);
        }

        @Override
        public PrivateKey getPrivateKey(String alias) {
            return identity.getPrivateKey(alias);
        }
    }

    /** The CAs, looked at again as a handshake checks a peer. */
    private final class TrustManager extends X509ExtendedTrustManager {
        /** A check of the delegate's. */
        private interface Check {
            void run() throws CertificateException;
        }

        private void check(Check c) throws CertificateException {
            checkIfDue();
            c.run();
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
            check(() -> trust.checkClientTrusted(chain, authType, socket));
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
            check(() -> trust.checkServerTrusted(chain, authType, socket));
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
            check(() -> trust.checkClientTrusted(chain, authType, engine));
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
            check(() -> trust.checkServerTrusted(chain, authType, engine));
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            check(() -> trust.checkClientTrusted(chain, authType));
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            check(() -> trust.checkServerTrusted(chain, authType));
        }

        /**
         * None named: a server's TLS context reads this once, for the CA names its certificate
         * request sends, and a client holds back a certificate whose issuer is not among them;
         * with the CA file replaced, clients of the new CA sent none. Without names a client
         * sends its certificate, which the checks above judge by the CAs of the moment.
         */
        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[0];
        }
    }
}
