package io.simdex.client;

import java.time.Instant;

/**
 * A collection as the server lists it.
 *
 * @param name      the collection's name
 * @param createdAt when it was created, millisecond precision
 */
public record CollectionInfo(String name, Instant createdAt) {
}
