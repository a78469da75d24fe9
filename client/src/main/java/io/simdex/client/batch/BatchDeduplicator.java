package io.simdex.client.batch;

import io.simdex.client.DedupDecision;
import io.simdex.client.Doc;
import io.simdex.client.Match;
import io.simdex.client.Probe;
import io.simdex.fingerprint.Hamming;

import java.util.Arrays;
import java.util.List;
import java.util.function.IntPredicate;

/**
 * Decides every document of a loaded batch: Nutch's exact rules, then near-duplicates within
 * the batch through in-memory block tables, then against the index by Query (and Dedup with
 * {@code --insert}), in rounds until nothing changes.
 *
 * <h2>What the decisions mean</h2>
 * Exactly what sending the surviving documents one at a time, in priority order
 * ({@link CrawlRules}), through Dedup against the index as it was would decide: a document is
 * kept iff no stored document and no kept document before it in priority order is within k.
 * Texts go to the index as texts, so a stored document the collection's verification matches
 * further off counts too; between kept documents of the batch, only k counts until Dedup
 * stores them (--insert).
 * Without --insert nothing is written; with it the kept ones are stored by Dedup, whose
 * atomic check makes the server the arbiter if another client writes at the same time.
 *
 * <h2>Rounds</h2>
 * The greedy pass over the tables decides each document against the kept ones before it. Only
 * its survivors are queried (in-batch duplicates never cost an index probe).
 * A survivor found in the index is dropped, which can re-admit later documents that only it
 * had blocked, so the pass re-runs from the earliest such rank and queries the newly kept;
 * each distinct fingerprint is queried at most once. With --insert, the kept documents then go
 * to Dedup in priority order; one that Dedup rejects (another writer got there first) starts
 * another round. Every document is sent to Dedup at most once, so the rounds end.
 *
 * <h2>Memory</h2>
 * Per document: order, rank, winner and distinct-fingerprint position (4 ints), state and
 * distance (2 bytes), a stored flag; per distinct fingerprint: the tables (see
 * {@link NearTables}), the kept rank and index state, and the matches of those found in the
 * index. No object per document.
 */
final class BatchDeduplicator {
    private static final int UNRANKED = Integer.MAX_VALUE;
    private static final byte INDEX_UNKNOWN = 0;
    private static final byte INDEX_CLEAN = 1;
    private static final byte INDEX_DUPLICATE = 2;

    private final BatchDocs docs;
    private final int k;
    private final IndexCalls index;
    private final BatchTexts texts;
    private final boolean insert;
    private final Progress progress;
    private final int n;

    final int[] order;
    final int[] rank;
    final byte[] state;
    final int[] winner;
    final byte[] distance;
    final boolean[] stored;
    /** Each document's position in {@link #tables}, or -1 when an exact rule decided it. */
    final int[] distinctOf;
    final NearTables tables;
    /** Per distinct fingerprint: the rank of its kept document, or UNRANKED. */
    final int[] keptRank;
    private final byte[] indexState;
    /** Per distinct fingerprint found in the index: the stored matches, nearest first. */
    final Object[] indexMatches;
    private int rounds;

    BatchDeduplicator(BatchDocs docs, BatchTexts texts, boolean[] rejected, int k, IndexCalls index, boolean insert,
                      Progress progress) {
        this.docs = docs;
        this.texts = texts;
        this.k = k;
        this.index = index;
        this.insert = insert;
        this.progress = progress;
        this.n = docs.size();
        this.order = CrawlRules.priorityOrder(docs);
        this.rank = new int[n];
        for (int r = 0; r < n; r++) {
            rank[order[r]] = r;
        }
        this.state = new byte[n];
        this.winner = new int[n];
        Arrays.fill(winner, -1);
        this.distance = new byte[n];
        this.stored = new boolean[n];
        CrawlRules.apply(docs, rank, rejected, state, winner);
        this.distinctOf = new int[n];
        this.tables = buildTables();
        this.keptRank = new int[tables.size()];
        this.indexState = new byte[tables.size()];
        this.indexMatches = new Object[tables.size()];
    }

    /** Runs the rounds until every document is decided. */
    void run() {
        for (int from = 0; from < n; ) {
            rounds++;
            greedy(from);
            from = checkIndex(from);
            if (from == n && insert) {
                from = store();
            }
        }
    }

    int rounds() {
        return rounds;
    }

    Reason reason(int doc) {
        return Reason.ofCode(state[doc]);
    }

    @SuppressWarnings("unchecked")
    List<Match> indexMatchesOf(int doc) {
        return (List<Match>) indexMatches[distinctOf[doc]];
    }

    private NearTables buildTables() {
        long[] fps = new long[n];
        int m = 0;
        for (int i = 0; i < n; i++) {
            if (state[i] == 0) {
                fps[m++] = docs.fingerprint(i);
            }
        }
        NearTables t = NearTables.of(fps, m);
        for (int i = 0; i < n; i++) {
            distinctOf[i] = state[i] == 0 ? t.indexOf(docs.fingerprint(i)) : -1;
        }
        return t;
    }

    /** Decides every table document at rank >= from against the kept ones before it. */
    private void greedy(int from) {
        for (int u = 0; u < keptRank.length; u++) {
            if (keptRank[u] >= from) {
                keptRank[u] = UNRANKED;
            }
        }
        for (int r = from; r < n; r++) {
            int i = order[r];
            int u = distinctOf[i];
            if (u < 0) {
                continue;
            }
            if (stored[i]) {
                keep(i, u, r);
            } else if (indexState[u] == INDEX_DUPLICATE) {
                state[i] = Reason.NEAR_DUPLICATE_IN_INDEX.code();
            } else {
                long fp = docs.fingerprint(i);
                int v = tables.nearest(fp, k, keptRank, r);
                if (v < 0) {
                    keep(i, u, r);
                } else {
                    state[i] = Reason.NEAR_DUPLICATE_IN_BATCH.code();
                    winner[i] = order[keptRank[v]];
                    distance[i] = (byte) Hamming.distance(fp, tables.fingerprint(v));
                }
            }
        }
    }

    private void keep(int i, int u, int r) {
        state[i] = Reason.UNIQUE.code();
        winner[i] = -1;
        keptRank[u] = Math.min(keptRank[u], r);
    }

    /**
     * Queries the kept documents not queried yet; returns the earliest rank to redo, or n. The
     * redo starts at the rejected document itself so that its kept rank is cleared.
     */
    private int checkIndex(int from) {
        int[] us = keptAt(from, d -> indexState[distinctOf[d]] == INDEX_UNKNOWN);
        if (us.length == 0) {
            return n;
        }
        progress.phase("index round " + rounds, us.length);
        int[] redo = {n};
        index.query(us.length, j -> probe(us[j]), (j, matches) -> {
            int doc = us[j];
            int u = distinctOf[doc];
            if (matches.isEmpty()) {
                indexState[u] = INDEX_CLEAN;
            } else {
                indexState[u] = INDEX_DUPLICATE;
                indexMatches[u] = matches;
                state[doc] = Reason.NEAR_DUPLICATE_IN_INDEX.code();
                redo[0] = Math.min(redo[0], rank[doc]);
            }
        }, progress::step);
        return redo[0];
    }

    /** Dedups the kept documents not stored yet; returns the earliest rank to redo, or n. */
    private int store() {
        int[] toStore = keptAt(0, d -> !stored[d]);
        if (toStore.length == 0) {
            return n;
        }
        progress.phase("insert round " + rounds, toStore.length);
        List<DedupDecision> decisions = index.dedup(toStore.length, j -> document(toStore[j]), progress::step);
        int redo = n;
        for (int j = 0; j < toStore.length; j++) {
            int doc = toStore[j];
            DedupDecision d = decisions.get(j);
            if (d.inserted()) {
                stored[doc] = true;
            } else {
                int u = distinctOf[doc];
                indexState[u] = INDEX_DUPLICATE;
                indexMatches[u] = d.duplicates();
                state[doc] = Reason.NEAR_DUPLICATE_IN_INDEX.code();
                redo = Math.min(redo, rank[doc]);
            }
        }
        return redo;
    }

    /**
     * What the index is asked about {@code doc}: its text when it came as text, so that the
     * server verifies it as the collection says; else its fingerprint.
     */
    private Probe probe(int doc) {
        return docs.hasContent(doc) ? Probe.ofText(texts.text(docs.lineOffset(doc))) : Probe.of(docs.fingerprint(doc));
    }

    /** What Dedup stores for {@code doc}: its text when it came as text (with what verification reads), else its fingerprint. */
    private Doc document(int doc) {
        return docs.hasContent(doc) ? Doc.ofText(docs.id(doc), texts.text(docs.lineOffset(doc))) : Doc.of(docs.id(doc), docs.fingerprint(doc));
    }

    /** Kept documents at rank >= from that pass {@code filter}, in rank order. */
    private int[] keptAt(int from, IntPredicate filter) {
        int[] out = new int[16];
        int count = 0;
        for (int r = from; r < n; r++) {
            int d = order[r];
            if (state[d] == Reason.UNIQUE.code() && filter.test(d)) {
                out = count == out.length ? Arrays.copyOf(out, count * 2) : out;
                out[count++] = d;
            }
        }
        return Arrays.copyOf(out, count);
    }
}
