package io.simdex.router.security;

import io.grpc.InsecureServerCredentials;
import io.grpc.ServerBuilder;
import io.grpc.ServerCredentials;
import io.grpc.TlsServerCredentials;
import io.simdex.server.tls.CertificatesInUse;
import io.simdex.server.tls.ReloadingCredentials;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * How a public port is protected: TLS (with client certificates required when a client CA is
 * given), bearer tokens checked against an auth file, and whether it may listen beyond loopback
 * without TLS. Built from the {@code --tls-cert}, {@code --tls-key}, {@code --tls-client-ca},
 * {@code --auth-file} and {@code --insecure} flags or their config keys; every file is read when
 * it is built, so a bad one stops the process at start, with its name.
 */
public final class ServerSecurity {
    /** Plaintext, no tokens, any address: what programs that embed the server get unless they ask. */
    public static final ServerSecurity NONE = new ServerSecurity(InsecureServerCredentials.create(), false, false, null, true);
    private static final Logger LOG = LoggerFactory.getLogger(ServerSecurity.class);

    private final ServerCredentials credentials;
    private final boolean tls;
    private final boolean clientCertificates;
    private final AuthFile auth;
    private final boolean insecure;

    private ServerSecurity(ServerCredentials credentials, boolean tls, boolean clientCertificates, AuthFile auth, boolean insecure) {
        this.credentials = credentials;
        this.tls = tls;
        this.clientCertificates = clientCertificates;
        this.auth = auth;
        this.insecure = insecure;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** What the server listens with: TLS credentials, or plaintext. */
    public ServerCredentials credentials() {
        return credentials;
    }

    public boolean tls() {
        return tls;
    }

    public boolean clientCertificates() {
        return clientCertificates;
    }

    public boolean tokens() {
        return auth != null;
    }

    /**
     * Refuses to serve plaintext beyond this machine unless told {@code insecure}: without TLS
     * the address must be a loopback one.
     *
     * @throws IllegalArgumentException naming the host and the flags that would allow it
     */
    public void checkListen(String host) {
        if (tls || insecure || loopback(host)) {
            if (!tls && auth != null && !loopback(host)) {
                LOG.warn("tokens travel in plaintext to {}: give it TLS (--tls-cert, --tls-key)", host);
            }
            return;
        }
        throw new IllegalArgumentException("refusing to listen on " + host + " without TLS: give --tls-cert and --tls-key"
                + " (config keys tls.cert, tls.key), or --insecure (insecure=true) to serve plaintext beyond loopback on purpose");
    }

    private static boolean loopback(String host) {
        try {
            return InetAddress.getByName(host).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }

    /** Adds the token check to {@code builder}; call it after every other interceptor, so it runs first. */
    public void install(ServerBuilder<?> builder) {
        if (auth != null) {
            builder.intercept(new AuthInterceptor(auth));
        }
    }

    /** Collects the settings; {@link #build()} reads the files. */
    public static final class Builder {
        private Path cert;
        private Path key;
        private Path clientCa;
        private Path authFile;
        private Duration authCheck = AuthFile.DEFAULT_CHECK;
        private Duration tlsCheck = ReloadingCredentials.DEFAULT_CHECK;
        private boolean insecure;

        private Builder() {
        }

        /** This server's certificate chain and PKCS#8 private key (PEM); both or neither. */
        public Builder tls(Path cert, Path key) {
            this.cert = cert;
            this.key = key;
            return this;
        }

        /** Require client certificates signed by the CA in this PEM file (null: none asked). */
        public Builder clientCa(Path clientCa) {
            this.clientCa = clientCa;
            return this;
        }

        /** Require bearer tokens granted in this file (null: no tokens). */
        public Builder authFile(Path authFile) {
            this.authFile = authFile;
            return this;
        }

        /** How often the auth file is looked at for changes (default {@link AuthFile#DEFAULT_CHECK}). */
        public Builder authCheck(Duration every) {
            this.authCheck = every;
            return this;
        }

        /** How often the TLS files are looked at for changes (default {@link ReloadingCredentials#DEFAULT_CHECK}). */
        public Builder tlsCheck(Duration every) {
            this.tlsCheck = every;
            return this;
        }

        /** Allow plaintext beyond loopback. */
        public Builder insecure(boolean insecure) {
            this.insecure = insecure;
            return this;
        }

        /**
         * @throws IllegalArgumentException for a certificate without a key or the other way
         *         round, a client CA without TLS, a file that is missing, or a malformed auth file line
         * @throws UncheckedIOException when a file cannot be read
         */
        public ServerSecurity build() {
            if ((cert == null) != (key == null)) {
                throw new IllegalArgumentException("give both --tls-cert and --tls-key (tls.cert and tls.key), or neither");
            }
            if (clientCa != null && cert == null) {
                throw new IllegalArgumentException("--tls-client-ca (tls.client.ca) needs TLS: give --tls-cert and --tls-key too");
            }
            AuthFile auth = authFile == null ? null : AuthFile.load(readable("auth", authFile), authCheck);
            if (cert == null) {
                return new ServerSecurity(InsecureServerCredentials.create(), false, false, auth, insecure);
            }
            // Read again when they change: certificates are renewed while the server runs.
            ReloadingCredentials files;
            try {
                files = ReloadingCredentials.load(readable("TLS certificate", cert), readable("TLS key", key),
                        clientCa == null ? null : readable("TLS client CA", clientCa), tlsCheck);
            } catch (UncheckedIOException e) {
                throw new UncheckedIOException("cannot read the TLS files: " + e.getCause().getMessage(), e.getCause());
            }
            CertificatesInUse.track(CertificatesInUse.PUBLIC, files::notAfter);
            TlsServerCredentials.Builder b = TlsServerCredentials.newBuilder().keyManager(files.keyManager());
            if (clientCa != null) {
                b.trustManager(files.trustManager()).clientAuth(TlsServerCredentials.ClientAuth.REQUIRE);
            }
            return new ServerSecurity(b.build(), true, clientCa != null, auth, insecure);
        }

        private static Path readable(String what, Path file) {
            if (!Files.isReadable(file)) {
                throw new IllegalArgumentException(what + " file " + file + " does not exist or is not readable");
            }
            return file;
        }
    }
}
