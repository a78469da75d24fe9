package io.simdex.client;

import io.grpc.ChannelCredentials;
import io.grpc.TlsChannelCredentials;
import io.grpc.util.AdvancedTlsX509TrustManager;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * TLS for a client's channel: the server is trusted if the CA certificates in {@code ca} (PEM)
 * signed its certificate, or the system's trusted CAs when {@code ca} is null; with {@code cert}
 * and {@code key} (PEM, the key PKCS#8) the client presents a certificate too, for a server that
 * requires one ({@code --tls-client-ca}). The server's certificate must name the host of the
 * target address in its subjectAltName.
 *
 * <p>A client's own channel ({@code SimdexClient.connect}) reads the files again when they
 * change ({@link #reloading}): certificates are renewed while crawlers run, and a handshake made
 * after a renewal (a new connection, a reconnect) presents the new certificate and trusts the new
 * CAs; connections open keep what they agreed.
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

    /**
     * How often a channel's files are looked at (their modification times; read only when one
     * changed): the least gRPC's AdvancedTls managers take. Renewals come days before expiry.
     */
    public static final Duration RELOAD_CHECK = Duration.ofMinutes(1);

    /**
     * Credentials whose files are read now and again whenever one changes, checked every
     * {@link #RELOAD_CHECK} until {@link Reloading#close}: gRPC's AdvancedTls managers, on one
     * daemon thread that every client shares. A renewed file that cannot be read (or parsed) is
     * logged and the last good one stays. A changed certificate or key is taken only if the key is
     * the certificate's, so a pair replaced one file at a time is never mixed, and a renewal that
     * keeps the key need only write the certificate ({@link ReloadingIdentity}).
     *
     * @throws UncheckedIOException naming the file that cannot be read, or is not PEM of its kind
     */
    public Reloading reloading() {
        return reloading(Checks.THREAD);
    }

    /** As {@link #reloading()}, the checks scheduled on {@code checks}. */
    Reloading reloading(ScheduledExecutorService checks) {
        long period = RELOAD_CHECK.toMillis();
        List<Closeable> stops = new ArrayList<>(2);
        TlsChannelCredentials.Builder b = TlsChannelCredentials.newBuilder();
        try {
            if (ca != null) {
                AdvancedTlsX509TrustManager trust = AdvancedTlsX509TrustManager.newBuilder().build();
                stops.add(trust.updateTrustCredentials(ca.toFile(), period, TimeUnit.MILLISECONDS, checks));
                b.trustManager(trust);
            }
            if (cert != null) {
                ReloadingIdentity identity = new ReloadingIdentity(cert, key, RELOAD_CHECK, checks);
                stops.add(identity);
                b.keyManager(identity.keyManager());
            }
        } catch (IOException | GeneralSecurityException e) {
            new Reloading(null, stops).close();
            throw unreadable(e instanceof IOException io ? io : new IOException(e));
        }
        return new Reloading(b.build(), stops);
    }

    /** Credentials that follow their files until closed. */
    public record Reloading(ChannelCredentials credentials, List<Closeable> checks) implements Closeable {
        /** Stops looking at the files; channels made with the credentials keep what was last read. */
        @Override
        public void close() {
            for (Closeable c : checks) {
                try {
                    c.close();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        }
    }

    /** The thread that looks at every client's files: a daemon, made when the first client needs it. */
    private static final class Checks {
        static final ScheduledExecutorService THREAD = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "simdex-client-tls-files");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Credentials read from the files once: for channels that live as long as one run (the load
     * generator's).
     *
     * @throws UncheckedIOException naming the file that cannot be read
     */
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
            throw unreadable(e);
        }
        return b.build();
    }

    private UncheckedIOException unreadable(IOException e) {
        return new UncheckedIOException("cannot read TLS files (CA " + ca + ", certificate " + cert + ", key " + key + "): "
                + e.getMessage(), e);
    }
}
