package io.simdex.server.tls;

import io.grpc.ChannelCredentials;
import io.grpc.InsecureChannelCredentials;
import io.grpc.InsecureServerCredentials;
import io.grpc.ServerCredentials;
import io.grpc.TlsChannelCredentials;
import io.grpc.TlsServerCredentials;

import java.io.UncheckedIOException;

/**
 * How the members of a cluster (routers and nodes) reach each other's gRPC ports: plaintext, or
 * mutual TLS under one cluster CA. With TLS every member presents its own certificate, as a
 * server on its node port and as a client when it calls a peer; a node port asks for a client
 * certificate and accepts only those the cluster CA signed, so only peers reach the shard
 * protocol. A peer's certificate must name, in its subjectAltName, the host its address gives
 * (gRPC checks it).
 */
public final class PeerCredentials {
    /** No TLS: for loopback and trusted networks only. */
    public static final PeerCredentials PLAINTEXT =
            new PeerCredentials(InsecureServerCredentials.create(), InsecureChannelCredentials.create(), null);

    private final ServerCredentials server;
    private final ChannelCredentials channel;
    private final TlsFiles files;

    private PeerCredentials(ServerCredentials server, ChannelCredentials channel, TlsFiles files) {
        this.server = server;
        this.channel = channel;
        this.files = files;
    }

    /**
     * Mutual TLS with this member's certificate chain and key (PEM; the key PKCS#8) and the
     * cluster CA (PEM), read now and again when they change ({@link ReloadingCredentials}).
     *
     * @throws UncheckedIOException naming the file that cannot be read
     */
    public static PeerCredentials mutualTls(TlsFiles files) {
        ReloadingCredentials c;
        try {
            c = ReloadingCredentials.load(files.cert(), files.key(), files.ca(), ReloadingCredentials.DEFAULT_CHECK);
        } catch (UncheckedIOException e) {
            throw new UncheckedIOException("cannot read the cluster TLS files " + files + ": " + e.getCause().getMessage(), e.getCause());
        }
        CertificatesInUse.track(CertificatesInUse.PEER, c::notAfter);
        ServerCredentials server = TlsServerCredentials.newBuilder()
                .keyManager(c.keyManager())
                .trustManager(c.trustManager())
                .clientAuth(TlsServerCredentials.ClientAuth.REQUIRE)
                .build();
        ChannelCredentials channel = TlsChannelCredentials.newBuilder()
                .keyManager(c.keyManager())
                .trustManager(c.trustManager())
                .build();
        return new PeerCredentials(server, channel, files);
    }

    /** What a node port listens with. */
    public ServerCredentials server() {
        return server;
    }

    /** What a member calls a peer's node port with. */
    public ChannelCredentials channel() {
        return channel;
    }

    /** The PEM files of mutual TLS; null for plaintext. */
    public TlsFiles files() {
        return files;
    }

    public boolean tls() {
        return files != null;
    }
}
