package io.simdex.client;

import java.util.List;

/**
 * What dedup decided for one document.
 *
 * @param id          the document's id
 * @param fingerprint its fingerprint (computed by the server when the document was text)
 * @param inserted    true when nothing was near and the document is now stored
 * @param duplicates  when not inserted, the stored documents it duplicates, nearest first;
 *                    empty when inserted; unmodifiable
 */
public record DedupDecision(String id, long fingerprint, boolean inserted, List<Match> duplicates) {
    public DedupDecision {
        duplicates = List.copyOf(duplicates);
    }
}
