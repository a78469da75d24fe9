package io.simdex.client.batch;

/** Why {@code dedup-batch} kept or dropped a document, with the name the output uses. */
enum Reason {
    /** Nothing within the distance, in the batch or the index: kept (and stored with --insert). */
    UNIQUE("unique"),
    /** Another document with the same URL was fetched later (Nutch's URL rule). */
    OLDER_FETCH_OF_URL("older-fetch-of-url"),
    /** Another document has the same normalised text and won on score, then URL (Nutch's content rule). */
    EXACT_DUPLICATE("exact-duplicate"),
    /** A kept document earlier in priority order is within the distance. */
    NEAR_DUPLICATE_IN_BATCH("near-duplicate-in-batch"),
    /** A stored document is within the distance (found by Query, or by Dedup with --insert). */
    NEAR_DUPLICATE_IN_INDEX("near-duplicate-in-index"),
    /** The server could not fingerprint the text (no terms after normalisation and stop words). */
    NO_FINGERPRINT("no-fingerprint");

    private static final Reason[] BY_CODE = values();

    private final String wireName;

    Reason(String wireName) {
        this.wireName = wireName;
    }

    /** The name in the output's {@code "reason"}. */
    String wireName() {
        return wireName;
    }

    boolean keep() {
        return this == UNIQUE;
    }

    /** A one-byte code for the state arrays: 0 is "not decided yet". */
    byte code() {
        return (byte) (ordinal() + 1);
    }

    /** The reason of a non-zero code. */
    static Reason ofCode(byte code) {
        return BY_CODE[code - 1];
    }
}
