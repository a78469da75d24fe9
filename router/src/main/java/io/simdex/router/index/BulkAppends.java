package io.simdex.router.index;

import io.simdex.router.shard.BucketStreams;
import io.simdex.router.shard.Fanout;

import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
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
 * <h2>Windows in flight</h2>
 * A full window is sent and the stream goes on while the shards apply it: remote nodes get it as
 * the next message of the load's one stream per node ({@link BucketStreams}), at most
 * {@link BucketStreams#MAX_UNACKED} windows ahead of their acknowledgements; the sender waits for
 * the oldest beyond that. A window counts as applied when every node's part of it is, at the
 * write quorum (the replica sets decide, as for any write), and windows count in the order sent.
 * Local shards answer as they are called, so for them a window is applied when it is sent.
 *
 * <h2>What a client sees</h2>
 * Ids and fp -> ids records are written as each batch arrives; a document becomes findable by
 * Query and Dedup when its window is applied, and every document is before the stream's
 * response. A stream that fails has accepted only the windows applied before (its error says how
 * many documents); the rest are bound but invisible (IndexRouter's order of writes), and sending
 * them again completes them. A window whose apply fails is kept and sent again, checked (see
 * {@link #apply}), by the next send or apply. Every window is applied, and waited for, before
 * anything could remove a bucket entry it holds (an id re-bound to another fingerprint).
 *
 * <p>Not thread-safe: gRPC calls a stream's observer serially.
 */
public final class BulkAppends implements AutoCloseable {
    /** Fingerprints held back: 8 MB a stream; each bucket's share is about 16 at any table size. */
    static final int WINDOW = 1 << 20;
    /**
     * Fingerprints all of a server's streams may hold back together, in flight included (64 MB,
     * and as much again while a window is sorted), so that many concurrent streams cannot
     * exhaust the heap. A stream that finds it spent applies its windows early, or, holding
     * none, its batch at once.
     */
    public static final int SERVER_BUDGET = 8 * WINDOW;

    private final int window;
    private final Semaphore budget;
    private final BucketStreams streams;
    /** Windows sent and not yet counted, oldest first. */
    private final ArrayDeque<Sent> sent = new ArrayDeque<>();
    /** Of the budget, what the window being filled holds. */
    private int permits;
    private String collection;
    private long generation;
    private long[] fresh = new long[1024];
    private int freshCount;
    private long[] checked = new long[0];
    private int checkedCount;
    private long documents;
    private long applied;

    /** A window sent: its appends, kept until it is applied, and the shards' answer ({@code null}: to be sent again). */
    private static final class Sent {
        final String collection;
        final long generation;
        final long[] fresh;
        final int freshCount;
        final long[] checked;
        final int checkedCount;
        final long documents;
        final int permits;
        /** A send of it failed: some of it may be in its buckets already, so every append is checked. */
        boolean checkAll;
        CompletableFuture<Void> done;

        Sent(String collection, long generation, long[] fresh, int freshCount, long[] checked, int checkedCount, long documents, int permits) {
            this.collection = collection;
            this.generation = generation;
            this.fresh = fresh;
            this.freshCount = freshCount;
            this.checked = checked;
            this.checkedCount = checkedCount;
            this.documents = documents;
            this.permits = permits;
        }
    }

    /** A stream's appends, drawing on {@code budget} (a server's, of SERVER_BUDGET permits). */
    public BulkAppends(Semaphore budget) {
        this(WINDOW, budget);
    }

    /** Holding at most {@code window} fingerprints (tests use small ones). */
    public BulkAppends(int window, Semaphore budget) {
        this(window, budget, new BucketStreams());
    }

    /** As {@link #BulkAppends(int, Semaphore)}, sending windows to remote nodes on {@code streams}, which {@link #close} closes. */
    public BulkAppends(int window, Semaphore budget, BucketStreams streams) {
        this.window = window;
        this.budget = budget;
        this.streams = streams;
    }

    /**
     * Holds back the appends of one written batch of {@code documents}: {@code fresh}
     * fingerprints had no ids (appended unscanned), {@code checked} ones may be in their buckets
     * already. Sends the window first if the batch belongs to another generation or would
     * overfill it, so a failure leaves the batch out of the window, for its retry to add.
     */
    void hold(IndexRouter index, String c, long g, long[] fresh, long[] checked, int documents) {
        int n = fresh.length + checked.length;
        if (this.documents > 0 && (g != generation || !c.equals(collection) || freshCount + checkedCount + n > window)) {
            send(index);
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
     * Applies every held append and waits until all are: the window being filled is sent, fresh
     * appends before checked ones on each node, so a checked copy of the same fingerprint finds
     * them. A window whose apply failed is sent again with its fresh appends checked too, so none
     * lands twice. On failure the failed windows are kept, for the next apply; it throws the
     * failure of the oldest, as the shard gave it.
     */
    public void apply(IndexRouter index) {
        send(index);
        settle(0);
    }

    /** Sends the windows to send again, then the one being filled; waits for the oldest while more than the limit are in flight. */
    private void send(IndexRouter index) {
        for (Sent s : sent) {
            if (s.done == null) {
                dispatch(index, s);
            }
        }
        if (documents > 0) {
            Sent s = new Sent(collection, generation, fresh, freshCount, checked, checkedCount, documents, permits);
            fresh = new long[1024];
            checked = new long[0];
            freshCount = 0;
            checkedCount = 0;
            documents = 0;
            permits = 0;
            sent.add(s);
            dispatch(index, s);
        }
        settle(BucketStreams.MAX_UNACKED);
    }

    private void dispatch(IndexRouter index, Sent s) {
        try (BucketStreams.Scope scope = streams.enter()) {
            s.done = index.addGrouped(s.collection, s.generation, s.fresh, s.freshCount, !s.checkAll, s.checked, s.checkedCount);
        } catch (RuntimeException e) {
            s.done = CompletableFuture.failedFuture(e);
        }
    }

    /** Counts the windows applied, oldest first, waiting for the oldest while more than {@code inFlight} are sent and unanswered. */
    private void settle(int inFlight) {
        while (!sent.isEmpty()) {
            Sent head = sent.peek();
            if (!head.done.isDone() && sent.size() <= inFlight) {
                return;
            }
            try {
                head.done.join();
            } catch (CompletionException e) {
                keepFailed();
                throw Fanout.cause(e);
            }
            sent.poll();
            applied += head.documents;
            budget.release(head.permits);
        }
    }

    /** After a failure: once every window in flight has its answer (none is still landing), the failed ones are to be sent again, checked. */
    private void keepFailed() {
        for (Sent s : sent) {
            s.done.exceptionally(t -> null).join();
        }
        for (Sent s : sent) {
            if (s.done.isCompletedExceptionally()) {
                s.done = null;
                s.checkAll = true;
            }
        }
    }

    /** Drops the held appends of a stream that ends without them (its shards refused them), returning its budget once none is in flight. */
    public void discard() {
        for (Sent s : sent) {
            if (s.done != null) {
                s.done.exceptionally(t -> null).join();
            }
            budget.release(s.permits);
        }
        sent.clear();
        freshCount = 0;
        checkedCount = 0;
        documents = 0;
        budget.release(permits);
        permits = 0;
    }

    /** Ends the load's streams to the nodes (each applies what it was sent first). */
    @Override
    public void close() {
        streams.close();
    }

    boolean isEmpty() {
        return held() == 0;
    }

    /** Documents whose appends are held back or not yet applied. */
    public long held() {
        long n = documents;
        for (Sent s : sent) {
            n += s.documents;
        }
        return n;
    }

    /** Documents whose appends are applied: the stream's first so many documents. */
    public long applied() {
        return applied;
    }

    private static long[] append(long[] to, int size, long[] more) {
        if (size + more.length > to.length) {
            to = java.util.Arrays.copyOf(to, Math.max(size + more.length, 2 * to.length));
        }
        System.arraycopy(more, 0, to, size, more.length);
        return to;
    }
}
