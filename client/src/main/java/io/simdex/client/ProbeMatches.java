package io.simdex.client;

import java.util.List;

/**
 * The answer to one probe of a query.
 *
 * @param fingerprint the probe's fingerprint (computed by the server when the probe was text)
 * @param matches     stored documents within the query's distance, nearest first, ties by id;
 *                    unmodifiable
 */
public record ProbeMatches(long fingerprint, List<Match> matches) {
    public ProbeMatches {
        matches = List.copyOf(matches);
    }
}
