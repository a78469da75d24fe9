package io.simdex.client;

import io.grpc.util.AdvancedTlsX509KeyManager;

import java.io.Closeable;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A client's certificate chain and key, read again when either file changed (modification time,
 * size or inode) since the pair in use was read, and taken only if the key is the certificate's,
 * as the server's identity is: a renewal that keeps the key writes only the certificate, and one
 * that replaces both, looked at between the two writes, keeps the old pair until the second.
 *
 * <p>gRPC's own file watcher ({@code AdvancedTlsX509KeyManager.updateIdentityCredentials(File,
 * File, ...)}) takes a pair only once both files changed, without checking that they belong
 * together, and its first check compares with no times at all: a certificate renewed without its
 * key before that check was taken with the old key, and every handshake failed until both were
 * renewed again; after it, a certificate renewed for the same key was never taken.
 */
final class ReloadingIdentity implements Closeable {
    private static final System.Logger LOG = System.getLogger(ReloadingIdentity.class.getName());

    private final Path cert;
    private final Path key;
    private final AdvancedTlsX509KeyManager manager = new AdvancedTlsX509KeyManager();
    private final ScheduledFuture<?> checks;
    /** Stamps of the pair in use, and of the last pair refused (logged once). */
    private List<Stamp> inUse;
    private List<Stamp> refused;

    /**
     * Reads the pair now and looks at the files every {@code period} on {@code executor}.
     *
     * @throws IOException or GeneralSecurityException if a file cannot be read or parsed, or the key is not the certificate's
     */
    ReloadingIdentity(Path cert, Path key, Duration period, ScheduledExecutorService executor) throws IOException, GeneralSecurityException {
        this.cert = cert;
        this.key = key;
        // Stamps before the read: a file written during it differs from them and is read again.
        inUse = stamps();
        read();
        checks = executor.scheduleWithFixedDelay(this::check, period.toMillis(), period.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Presents the pair in use. */
    AdvancedTlsX509KeyManager keyManager() {
        return manager;
    }

    /** Stops looking at the files; the pair in use stays. */
    @Override
    public void close() {
        checks.cancel(false);
    }

    private synchronized void check() {
        try {
            List<Stamp> now = stamps();
            if (now.equals(inUse) || now.equals(refused)) {
                return;
            }
            try {
                read();
                inUse = now;
                LOG.log(System.Logger.Level.INFO, "TLS client certificate {0} (key {1}) read again", cert, key);
            } catch (IOException | GeneralSecurityException | RuntimeException e) {
                refused = now;
                LOG.log(System.Logger.Level.WARNING, "TLS client certificate {0} and key {1} changed but cannot be used, the previous ones stay: {2}",
                        cert, key, e.getMessage());
            }
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "cannot look at TLS client certificate {0} or key {1}: {2}", cert, key, e.getMessage());
        }
    }

    private List<Stamp> stamps() throws IOException {
        return List.of(Stamp.of(cert), Stamp.of(key));
    }

    /**
     * What tells a changed file without reading it, as the server's FileStamp: modification
     * time, size and inode, so a file replaced by {@code mv} within one tick of the clock counts.
     */
    private record Stamp(FileTime modified, long size, Object fileKey) {
        static Stamp of(Path file) throws IOException {
            BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class);
            return new Stamp(a.lastModifiedTime(), a.size(), a.fileKey());
        }
    }

    /** Reads the pair (gRPC's parser, as the server's credentials) and takes it if the key is the certificate's. */
    private void read() throws IOException, GeneralSecurityException {
        AdvancedTlsX509KeyManager scratch = new AdvancedTlsX509KeyManager();
        scratch.updateIdentityCredentials(cert.toFile(), key.toFile());
        X509Certificate[] chain = scratch.getCertificateChain("default");
        PrivateKey k = scratch.getPrivateKey("default");
        if (chain.length == 0) {
            throw new GeneralSecurityException(cert + " holds no certificate");
        }
        if (!isKeyOf(chain[0], k)) {
            throw new GeneralSecurityException("key " + key + " is not the key of certificate " + cert);
        }
        manager.updateIdentityCredentials(chain, k);
    }

    /**
     * Whether a signature by {@code k} verifies with the certificate's public key: the server's
     * ReloadingCredentials checks its pair so too; the client depends on neither the server nor
     * core, so it keeps its own.
     */
    private static boolean isKeyOf(X509Certificate leaf, PrivateKey k) throws GeneralSecurityException {
        String algorithm = switch (k.getAlgorithm()) {
            case "RSA" -> "SHA256withRSA";
            case "EC" -> "SHA256withECDSA";
            case "Ed25519", "EdDSA" -> "Ed25519";
            default -> throw new GeneralSecurityException("a " + k.getAlgorithm() + " key: RSA, EC or Ed25519 are taken");
        };
        byte[] probe = "simdex client: the certificate's key?".getBytes(StandardCharsets.US_ASCII);
        Signature signer = Signature.getInstance(algorithm);
        signer.initSign(k);
        signer.update(probe);
        Signature verifier = Signature.getInstance(algorithm);
        verifier.initVerify(leaf.getPublicKey());
        verifier.update(probe);
        return verifier.verify(signer.sign());
    }
}
