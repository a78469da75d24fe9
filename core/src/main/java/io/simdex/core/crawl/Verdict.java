package io.simdex.core.crawl;

/**
 * What the rules decided for one record.
 *
 * @param reason why it was kept or dropped
 * @param winner the input position of the record that beat it under the rule that dropped it,
 *               or its own position when kept. A winner may be dropped by a later rule:
 *               {@link NutchDedup#survivor} follows the chain to a kept record.
 */
public record Verdict(Reason reason, int winner) {
    /** Why a record was kept or dropped. */
    public enum Reason {
        /** No rule dropped it. */
        KEPT,
        /** Another record of the same URL was fetched later ({@link Rule#URL}). */
        OLDER_FETCH_OF_URL,
        /** Another record with the same content won on score or URL ({@link Rule#CONTENT}). */
        DUPLICATE_CONTENT
    }

    public boolean keep() {
        return reason == Reason.KEPT;
    }
}
