package io.simdex.client;

import io.grpc.Channel;
import io.grpc.ChannelCredentials;
import io.grpc.ClientInterceptor;
import io.grpc.ClientInterceptors;
import io.grpc.InsecureChannelCredentials;
import io.grpc.Metadata;
import io.grpc.stub.MetadataUtils;
import java.time.Duration;
import java.util.List;

/**
 * How a {@link SimdexClient} calls the server. Immutable; derive variants with the
 * {@code with...} methods from {@link #DEFAULTS}.
 *
 * @param deadline         deadline of each unary call, measured from when the call starts; a
 *                         request split into several calls gives each call the full deadline
 * @param bulkLoadDeadline deadline of a whole {@link BulkLoader} stream, from its creation to
 *                         the server's response
 * @param maxBatch         most documents, probes, ids or texts sent in one call; longer lists
 *                         are split. Defaults to the server's limit of 10,000
 * @param tls              TLS for channels the client opens itself ({@code connect}); null: plaintext
 * @param token            sent with every call as {@code authorization: Bearer TOKEN}; null: none
 */
public record ClientOptions(Duration deadline, Duration bulkLoadDeadline, int maxBatch, ClientTls tls, String token) {
    private static final Metadata.Key<String> AUTHORIZATION = Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

    /** The server's per-request limit on documents, probes, ids and texts. */
    public static final int SERVER_BATCH_LIMIT = 10_000;

    /** 30 s per call, one hour per bulk load, batches of 10,000. */
    public static final ClientOptions DEFAULTS =
            new ClientOptions(Duration.ofSeconds(30), Duration.ofHours(1), SERVER_BATCH_LIMIT);

    /** Plaintext, no token. */
    public ClientOptions(Duration deadline, Duration bulkLoadDeadline, int maxBatch) {
        this(deadline, bulkLoadDeadline, maxBatch, null, null);
    }

    /** @throws IllegalArgumentException when a deadline is not positive, maxBatch is below 1 or the token is blank */
    public ClientOptions {
        requirePositive("deadline", deadline);
        requirePositive("bulkLoadDeadline", bulkLoadDeadline);
        if (maxBatch < 1) {
            throw new IllegalArgumentException("maxBatch must be at least 1, was " + maxBatch);
        }
        if (token != null && (token.isBlank() || !token.strip().equals(token))) {
            throw new IllegalArgumentException("token must be non-blank without surrounding spaces");
        }
    }

    public ClientOptions withDeadline(Duration deadline) {
        return new ClientOptions(deadline, bulkLoadDeadline, maxBatch, tls, token);
    }

    public ClientOptions withBulkLoadDeadline(Duration bulkLoadDeadline) {
        return new ClientOptions(deadline, bulkLoadDeadline, maxBatch, tls, token);
    }

    public ClientOptions withMaxBatch(int maxBatch) {
        return new ClientOptions(deadline, bulkLoadDeadline, maxBatch, tls, token);
    }

    private static void requirePositive(String name, Duration d) {
        if (d == null || d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(name + " must be positive, was " + d);
        }
    }

    /** These options over TLS ({@code connect} only: a channel given to {@code over} keeps its own transport). */
    public ClientOptions withTls(ClientTls tls) {
        return new ClientOptions(deadline, bulkLoadDeadline, maxBatch, tls, token);
    }

    /** These options sending {@code token} with every call (null: none). */
    public ClientOptions withToken(String token) {
        return new ClientOptions(deadline, bulkLoadDeadline, maxBatch, tls, token);
    }

    /** The token is left out, so options can be logged. */
    @Override
    public String toString() {
        return "ClientOptions[deadline=" + deadline + ", bulkLoadDeadline=" + bulkLoadDeadline + ", maxBatch=" + maxBatch
                + ", tls=" + tls + ", token=" + (token == null ? "none" : "set") + "]";
    }

    /**
     * TLS as {@link #tls} says, its files read now and only now, else plaintext: for a channel
     * that lives as long as one run (the load generator's). {@code connect} follows the files
     * while its channel is open ({@link ClientTls#reloading}).
     */
    public ChannelCredentials channelCredentials() {
        return tls == null ? InsecureChannelCredentials.create() : tls.credentials();
    }

    /** {@code channel} with the token attached to every call, if there is one. */
    Channel authorized(Channel channel) {
        return ClientInterceptors.intercept(channel, interceptors());
    }

    /** What a channel needs so every call carries the token: none without one. */
    public List<ClientInterceptor> interceptors() {
        if (token == null) {
            return List.of();
        }
        Metadata headers = new Metadata();
        headers.put(AUTHORIZATION, "Bearer " + token);
        return List.of(MetadataUtils.newAttachHeadersInterceptor(headers));
    }
}
