package io.simdex.client;

import java.util.List;

/**
 * What dedup decided for one document.
 *
 * @param id          the document's id
 * @param fingerprint its fingerprint (computed by the server when the document was text)
 * @param inserted     true when nothing was near and the document is now stored (also when a
 *                     retried call finds it stored by an earlier attempt)
 * @param duplicates   when not inserted, the documents it duplicates, nearest first, at most the
 *                     server's limit (100); empty when inserted; unmodifiable
 * @param knownText    its normalised text was stored before: the fingerprint came from the
 *                     server's content index, not a new SimHash
 * @param sequence     its place in the serial order of the collection's Dedup decisions
 * @param totalMatches how many documents it duplicates in all, reported or not
 */
public record DedupDecision(String id, long fingerprint, boolean inserted, List<Match> duplicates, boolean knownText, long sequence,
                            long totalMatches) {
    public DedupDecision {
        duplicates = List.copyOf(duplicates);
    }

    /** A decision without content-index or ordering information. */
    public DedupDecision(String id, long fingerprint, boolean inserted, List<Match> duplicates) {
        this(id, fingerprint, inserted, duplicates, false, 0, duplicates.size());
    }
}
