package io.simdex.client;

import io.simdex.proto.v1.CollectionSettings;

import java.time.Instant;

/**
 * A collection as the server lists it.
 *
 * @param name      the collection's name
 * @param createdAt when it was created, millisecond precision
 * @param settings  its settings, every default filled in by the server
 */
public record CollectionInfo(String name, Instant createdAt, CollectionSettings settings) {
}
