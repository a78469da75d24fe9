package io.simdex.router.index;

import java.util.concurrent.atomic.LongAdder;

/**
 * Process-wide counts of the Dedup calls found cut short (their intents pending on the keys a
 * later call locked, see {@link DedupLocks}), of their documents that later call stored, and of
 * those it dropped: exported as {@code simdex_dedup_completed_calls_total},
 * {@code simdex_dedup_completed_documents_total} and {@code simdex_dedup_dropped_documents_total}. Nonzero only after a failure: a router killed
 * amid Dedups, a shard failing a write. Counted once per process, as {@link SketchReads} is.
 */
public final class CutShortDedups {
    private static final LongAdder CALLS = new LongAdder();
    private static final LongAdder DOCUMENTS = new LongAdder();
    private static final LongAdder DROPPED = new LongAdder();

    private CutShortDedups() {
    }

    static void completed(int calls, int documents, int dropped) {
        CALLS.add(calls);
        DOCUMENTS.add(documents);
        DROPPED.add(dropped);
    }

    /** Calls cut short whose documents were stored by a later call, so far. */
    public static long calls() {
        return CALLS.sum();
    }

    /** Documents so stored, so far. */
    public static long documents() {
        return DOCUMENTS.sum();
    }

    /** Documents of such calls dropped unwritten (their intents had not reached every shard of their keys), so far. */
    public static long dropped() {
        return DROPPED.sum();
    }
}
