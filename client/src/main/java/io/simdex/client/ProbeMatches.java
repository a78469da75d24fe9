package io.simdex.client;

import java.util.List;

/**
 * The answer to one probe of a query.
 *
 * @param fingerprint the probe's fingerprint (computed by the server when the probe was text)
 * @param matches      stored documents within the query's distance, nearest first, ties by id,
 *                     at most the query's limit; unmodifiable
 * @param totalMatches how many stored documents match in all, returned or not
 */
public record ProbeMatches(long fingerprint, List<Match> matches, long totalMatches) {
    public ProbeMatches {
        matches = List.copyOf(matches);
    }

    /** Matches that are all there is: the total is their count. */
    public ProbeMatches(long fingerprint, List<Match> matches) {
        this(fingerprint, matches, matches.size());
    }
}
