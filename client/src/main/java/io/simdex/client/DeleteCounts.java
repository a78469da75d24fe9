package io.simdex.client;

/**
 * The outcome of a delete.
 *
 * @param deleted  ids that were stored and are now gone
 * @param notFound ids that were not stored (not an error)
 */
public record DeleteCounts(long deleted, long notFound) {
    /** The counts of two deletes together: used to sum the calls of a split request. */
    public DeleteCounts plus(DeleteCounts other) {
        return new DeleteCounts(deleted + other.deleted, notFound + other.notFound);
    }
}
