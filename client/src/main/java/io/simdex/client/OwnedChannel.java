package io.simdex.client;

import io.grpc.ChannelCredentials;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;

import java.util.concurrent.TimeUnit;

/**
 * A channel a client opened itself ({@code connect}), with the reading of its TLS files that it
 * started ({@link ClientTls#reloading}): the two end together.
 */
final class OwnedChannel implements AutoCloseable {
    private static final long SHUTDOWN_WAIT_SECONDS = 5;

    final ManagedChannel channel;
    /** Null for plaintext. */
    private final ClientTls.Reloading tls;

    private OwnedChannel(ManagedChannel channel, ClientTls.Reloading tls) {
        this.channel = channel;
        this.tls = tls;
    }

    /** A channel to {@code target}: plaintext, or TLS as {@link ClientOptions#tls()} says, its files followed while it is open. */
    static OwnedChannel open(String target, ClientOptions options) {
        ClientTls.Reloading tls = options.tls() == null ? null : options.tls().reloading();
        ChannelCredentials credentials = tls == null ? InsecureChannelCredentials.create() : tls.credentials();
        try {
            return new OwnedChannel(Grpc.newChannelBuilder(target, credentials).build(), tls);
        } catch (RuntimeException e) {
            if (tls != null) {
                tls.close();
            }
            throw e;
        }
    }

    /** Shuts the channel down, waiting up to 5 s for calls to finish, then stops reading its TLS files. */
    @Override
    public void close() {
        channel.shutdown();
        try {
            if (!channel.awaitTermination(SHUTDOWN_WAIT_SECONDS, TimeUnit.SECONDS)) {
                channel.shutdownNow();
            }
        } catch (InterruptedException e) {
            channel.shutdownNow();
            Thread.currentThread().interrupt();
        } finally {
            if (tls != null) {
                tls.close();
            }
        }
    }
}
