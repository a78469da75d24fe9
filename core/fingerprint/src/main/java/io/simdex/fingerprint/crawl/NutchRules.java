package io.simdex.fingerprint.crawl;

import io.simdex.fingerprint.IntSort;

import java.util.function.IntPredicate;
import java.util.stream.IntStream;

/**
 * Nutch's two exact deduplication rules over the columns of a crawl batch, as pure functions:
 * each drops, among the documents still undecided, all but the best of every group sharing a
 * URL (or a content hash), recording why and which document won. Sorting makes each rule
 * O(n log n) with no object per document.
 *
 * <h2>Priority</h2>
 * Which of two documents is better when a rule must choose: the higher score (absent = 0,
 * {@link Double#compare} order, so +0.0 beats -0.0), then the one with a URL, then the shorter
 * URL in UTF-8 bytes, then the smaller URL in code point order, then the earlier position.
 * Without scores and URLs this is input order, so the first of a group is kept.
 *
 * <h2>Rules</h2>
 * <ul>
 *   <li>{@link #dropOlderFetches URL}: of undecided documents with the same URL, the newest
 *       fetch time wins (absent = oldest), then priority.</li>
 *   <li>{@link #dropDuplicateContent content}: of undecided documents with the same content
 *       hash, the first in priority wins.</li>
 * </ul>
 * Nutch runs URL, then content; the package comment says why the order matters. A caller may
 * decide documents in between (the client marks texts it could not fingerprint): a document
 * whose state is not {@link #UNDECIDED} is neither dropped nor a winner.
 *
 * <h2>Invariants</h2>
 * After a rule, no two undecided documents share its key; every document it dropped has a
 * winner that shares the key and was undecided when the rule ran (the winner may be dropped by
 * a later rule). Input order matters only through the last tie-break, position.
 */
public final class NutchRules {
    /** The state of a document no rule has decided yet. */
    public static final byte UNDECIDED = 0;

    private NutchRules() {
    }

    /**
     * Document positions in priority order, best first: the identity when no document has a URL
     * or a score other than +0.0; an empty array for an empty batch.
     */
    public static int[] priorityOrder(CrawlColumns docs) {
        int[] order = IntStream.range(0, docs.size()).toArray();
        if (anyPriorityField(docs)) {
            IntSort.sort(order, (a, b) -> comparePriority(docs, a, b));
        }
        return order;
    }

    /**
     * The URL rule: of the undecided documents with a URL, each group with the same URL keeps
     * its newest fetch (then the first in {@code rank}); the others get state {@code dropped}
     * and their {@code winner}. Documents without a URL, and decided ones, are left alone.
     *
     * @param rank    each document's place in {@link #priorityOrder}
     * @param state   per document: {@link #UNDECIDED} or a caller's code, updated in place
     * @param winner  per document: set for each document this rule drops, else untouched
     * @param dropped the non-zero state code for a document this rule drops
     * @throws IllegalArgumentException if an array is shorter than the batch or dropped is
     *                                  {@link #UNDECIDED}
     */
    public static void dropOlderFetches(CrawlColumns docs, int[] rank, byte[] state, int[] winner, byte dropped) {
        check(docs, rank, state, winner, dropped);
        int[] withUrl = undecided(docs.size(), state, docs::hasUrl);
        IntSort.sort(withUrl, (a, b) -> {
            int c = docs.compareUrls(a, b);
            c = c != 0 ? c : Long.compare(docs.fetchTime(b), docs.fetchTime(a));
            return c != 0 ? c : Integer.compare(rank[a], rank[b]);
        });
        dropAllButFirst(withUrl, (a, b) -> docs.compareUrls(a, b) == 0, state, winner, dropped);
    }

    /**
     * The content rule: of the undecided documents with content, each group with the same
     * content hash keeps the first in {@code rank}; the others get state {@code dropped} and
     * their {@code winner}. Documents without content, and decided ones, are left alone.
     *
     * @throws IllegalArgumentException as {@link #dropOlderFetches}
     */
    public static void dropDuplicateContent(CrawlColumns docs, int[] rank, byte[] state, int[] winner, byte dropped) {
        check(docs, rank, state, winner, dropped);
        int[] withContent = undecided(docs.size(), state, docs::hasContent);
        IntSort.sort(withContent, (a, b) -> {
            int c = Long.compareUnsigned(docs.contentHigh(a), docs.contentHigh(b));
            c = c != 0 ? c : Long.compareUnsigned(docs.contentLow(a), docs.contentLow(b));
            return c != 0 ? c : Integer.compare(rank[a], rank[b]);
        });
        dropAllButFirst(withContent,
                (a, b) -> docs.contentHigh(a) == docs.contentHigh(b) && docs.contentLow(a) == docs.contentLow(b),
                state, winner, dropped);
    }

    private static boolean anyPriorityField(CrawlColumns docs) {
        for (int i = 0; i < docs.size(); i++) {
            // compare, not ==: -0.0 sorts below +0.0, so it changes the order.
            if (docs.hasUrl(i) || Double.compare(docs.score(i), 0.0) != 0) {
                return true;
            }
        }
        return false;
    }

    private static int comparePriority(CrawlColumns docs, int a, int b) {
        int c = Double.compare(docs.score(b), docs.score(a));
        if (c != 0) {
            return c;
        }
        boolean ua = docs.hasUrl(a);
        boolean ub = docs.hasUrl(b);
        if (ua != ub) {
            return ua ? -1 : 1;
        }
        if (ua) {
            c = Integer.compare(docs.urlLength(a), docs.urlLength(b));
            c = c != 0 ? c : docs.compareUrls(a, b);
        }
        return c != 0 ? c : Integer.compare(a, b);
    }

    /** In a sorted array, each run of equal keys keeps its first element and drops the rest. */
    private static void dropAllButFirst(int[] sorted, SameKey same, byte[] state, int[] winner, byte dropped) {
        int first = -1;
        for (int i : sorted) {
            if (first >= 0 && same.test(first, i)) {
                state[i] = dropped;
                winner[i] = first;
            } else {
                first = i;
            }
        }
    }

    private static int[] undecided(int n, byte[] state, IntPredicate has) {
        return IntStream.range(0, n).filter(i -> state[i] == UNDECIDED && has.test(i)).toArray();
    }

    private static void check(CrawlColumns docs, int[] rank, byte[] state, int[] winner, byte dropped) {
        int n = docs.size();
        if (rank.length < n || state.length < n || winner.length < n) {
            throw new IllegalArgumentException("arrays must hold " + n + " documents, had rank " + rank.length
                    + ", state " + state.length + ", winner " + winner.length);
        }
        if (dropped == UNDECIDED) {
            throw new IllegalArgumentException("dropped must differ from UNDECIDED (" + UNDECIDED + ")");
        }
    }

    @FunctionalInterface
    private interface SameKey {
        boolean test(int a, int b);
    }
}
