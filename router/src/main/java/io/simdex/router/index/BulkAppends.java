package io.simdex.router.index;

import java.util.Arrays;
import java.util.concurrent.Semaphore;

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
    /**
     * Fingerprints all of a server's streams may hold back together (64 MB, and as much again
     * while a window is sorted), so that many concurrent streams cannot exhaust the heap. A
     * stream that finds it spent applies its own window early, or, holding none, its batch at once.
     */
    public static final int SERVER_BUDGET = 8 * WINDOW;

    private final int window;
    private final Semaphore budget;
    /** Of the budget, what this stream holds. */
    private int permits;
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

    /** A stream's appends, drawing on {@code budget} (a server's, of SERVER_BUDGET permits). */
    public BulkAppends(Semaphore budget) {
        this(WINDOW, budget);
    }

    /** Holding at most {@code window} fingerprints (tests use small ones). */
    public BulkAppends(int window, Semaphore budget) {
        this.window = window;
        this.budget = budget;
    }

    /**
     * Holds back the appends of one written batch of {@code documents}: {@code fresh}
     * fingerprints had no ids (appended unscanned), {@code checked} ones may be in their buckets
     * already. Applies the window first if the batch belongs to another generation or would
     * overfill it, so a failure leaves the batch out of the window, for its retry to add.
     */
    void hold(IndexRouter index, String c, long g, long[] fresh, long[] checked, int documents) {
        int n = fresh.length + checked.length;
        if (!isEmpty() && (g != generation || !c.equals(collection) || freshCount + checkedCount + n > window)) {
            apply(index);
        }
        boolean granted = budget.tryAcquire(n);
        if (!granted && !isEmpty()) {
            apply(index);
            granted = budget.tryAcquire(n);
        }
        collection = c;
        generation = g;
        this.fresh = append(this.fresh, freshCount, fresh);
        freshCount += fresh.length;
        this.checked = append(this.checked, checkedCount, checked);
        checkedCount += checked.length;
        this.documents += documents;
        if (granted) {
            permits += n;
        } else {
            apply(index);
        }
    }

    /**
     * Applies the held appends: fresh ones first, so a checked copy of the same fingerprint
     * finds them. After a failed apply, fresh ones are checked too, so none lands twice. On
     * failure the window is kept, for the next apply.
     */
    public void apply(IndexRouter index) {
        if (isEmpty()) {
            return;
        }
        boolean checkAll = partial;
        partial = true;
        index.addGrouped(collection, generation, fresh, freshCount, !checkAll, checked, checkedCount);
        partial = false;
        applied += documents;
        clear();
    }

    /** Drops the held appends of a stream that ends without them (its shards refused them), returning its budget. */
    public void discard() {
        clear();
    }

    private void clear() {
        freshCount = 0;
        checkedCount = 0;
        documents = 0;
        budget.release(permits);
        permits = 0;
    }

    boolean isEmpty() {
        return documents == 0;
    }

    /** Documents whose appends are held back. */
    public long held() {
        return documents;
    }

    /** Documents whose appends are applied: the stream's first so many documents. */
    public long applied() {
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
