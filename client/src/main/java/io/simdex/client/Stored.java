package io.simdex.client;

import java.util.OptionalLong;

/**
 * What a Lookup found for one id.
 *
 * @param id          the id asked for
 * @param fingerprint the fingerprint it is stored with; empty when it is not stored (or only
 *                    before the collection's retention window)
 */
public record Stored(String id, OptionalLong fingerprint) {
    public boolean found() {
        return fingerprint.isPresent();
    }
}
