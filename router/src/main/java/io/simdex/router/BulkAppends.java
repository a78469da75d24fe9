package io.simdex.router;

import java.util.Arrays;

/**
 * The bucket appends of one BulkLoad stream, held back and applied a window at a time, grouped
 * by bucket: Manku et al.'s batch mode (WWW 2007, section 3.2) for writes.
 *
 * <h2>Why</h2>
 * A 5,000-document batch spreads its 20,000 appends over 4 x 65,536 buckets, so no two share a
 * page and each costs a map operation or two on a random page. A window of {@link #WINDOW}
 * fingerprints gives each bucket about 16 of them, appended to its last page in one operation
 * (BucketTable#addAll). At 50M fingerprints that was 44% of a bulk load's server CPU.
 *
 * <h2>What a client sees</h2>
 * Ids and fp -> ids records are written as each batch arrives; a document becomes findable by
 * Query and Dedup when its window is applied, and every document is before the stream's
 * response. A stream that fails has accepted only the windows applied before (its error says how
 * many documents); the rest are bound but invisible (IndexRouter's order of writes), and sending
 * them again completes them. The window is applied early before anything could remove a bucket
 * entry it holds (an id re-bound to another fingerprint) and when the generation changes.
 *
 * <p>Not thread-safe: gRPC calls a stream's observer serially.
 */
public final class BulkAppends {
    /** Fingerprints held back: 8 MB a stream; each bucket's share is about 16 at any table size. */
    static final int WINDOW = 1 << 20;

    private final int window;
    private String collection;
    private long generation;
    private long[] fresh = new long[1024];
    private int freshCount;
    private long[] checked = new long[0];
    private int checkedCount;
    private long documents;
    private long applied;
    /** An apply started and did not finish: some of the window may be in its buckets already. */
    private boolean partial;

    BulkAppends() {
        this(WINDOW);
    }

    /** Holding at most {@code window} fingerprints (tests use small ones). */
    BulkAppends(int window) {
        this.window = window;
    }

    /**
     * Holds back the appends of one written batch of {@code documents}: {@code fresh}
     * fingerprints had no ids (appended unscanned), {@code checked} ones may be in their buckets
     * already. Applies the window first if the batch belongs to another generation or would
     * overfill it, so a failure leaves the batch out of the window, for its retry to add.
     */
    void hold(IndexRouter index, String c, long g, long[] fresh, long[] checked, int documents) {
        if (!isEmpty() && (g != generation || !c.equals(collection) || freshCount + checkedCount + fresh.length + checked.length > window)) {
            apply(index);
        }
        collection = c;
        generation = g;
        this.fresh = append(this.fresh, freshCount, fresh);
        freshCount += fresh.length;
        this.checked = append(this.checked, checkedCount, checked);
        checkedCount += checked.length;
        this.documents += documents;
    }

    /**
     * Applies the held appends: fresh ones first, so a checked copy of the same fingerprint
     * finds them. After a failed apply, fresh ones are checked too, so none lands twice. On
     * failure the window is kept, for the next apply.
     */
    void apply(IndexRouter index) {
        if (isEmpty()) {
            return;
        }
        boolean checkAll = partial;
        partial = true;
        index.addGrouped(collection, generation, fresh, freshCount, !checkAll);
        index.addGrouped(collection, generation, checked, checkedCount, false);
        partial = false;
        applied += documents;
        freshCount = 0;
        checkedCount = 0;
        documents = 0;
    }

    boolean isEmpty() {
        return documents == 0;
    }

    /** Documents whose appends are held back. */
    long held() {
        return documents;
    }

    /** Documents whose appends are applied: the stream's first so many documents. */
    long applied() {
        return applied;
    }

    private static long[] append(long[] to, int size, long[] more) {
        if (size + more.length > to.length) {
            to = Arrays.copyOf(to, Math.max(size + more.length, 2 * to.length));
        }
        System.arraycopy(more, 0, to, size, more.length);
        return to;
    }
}
