package io.simdex.client;

import java.time.Duration;

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
 */
public record ClientOptions(Duration deadline, Duration bulkLoadDeadline, int maxBatch) {
    /** The server's per-request limit on documents, probes, ids and texts. */
    public static final int SERVER_BATCH_LIMIT = 10_000;

    /** 30 s per call, one hour per bulk load, batches of 10,000. */
    public static final ClientOptions DEFAULTS =
            new ClientOptions(Duration.ofSeconds(30), Duration.ofHours(1), SERVER_BATCH_LIMIT);

    /** @throws IllegalArgumentException when a deadline is not positive or maxBatch is below 1 */
    public ClientOptions {
        requirePositive("deadline", deadline);
        requirePositive("bulkLoadDeadline", bulkLoadDeadline);
        if (maxBatch < 1) {
            throw new IllegalArgumentException("maxBatch must be at least 1, was " + maxBatch);
        }
    }

    public ClientOptions withDeadline(Duration deadline) {
        return new ClientOptions(deadline, bulkLoadDeadline, maxBatch);
    }

    public ClientOptions withBulkLoadDeadline(Duration bulkLoadDeadline) {
        return new ClientOptions(deadline, bulkLoadDeadline, maxBatch);
    }

    public ClientOptions withMaxBatch(int maxBatch) {
        return new ClientOptions(deadline, bulkLoadDeadline, maxBatch);
    }

    private static void requirePositive(String name, Duration d) {
        if (d == null || d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(name + " must be positive, was " + d);
        }
    }
}
