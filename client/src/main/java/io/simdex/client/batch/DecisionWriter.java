package io.simdex.client.batch;

import com.google.gson.stream.JsonWriter;
import io.simdex.client.Fingerprints;
import io.simdex.client.Match;
import io.simdex.fingerprint.Hamming;

import java.io.IOException;
import java.io.Writer;
import java.util.List;
import java.util.Map;

/**
 * Writes one JSON line per input document, in input order:
 * <pre>
 * {"id": "d7", "fingerprint": "0123456789abcdef", "decision": "drop",
 *  "reason": "near-duplicate-in-batch", "duplicate_of": ["d2"], "distance": 2}
 * </pre>
 * {@code duplicate_of} lists up to {@link IndexCalls#MATCH_LIMIT} ids, nearest first: the kept
 * documents before it in priority order (in batch), the stored ones (in index), or the single
 * winner of an exact rule; it is empty for kept documents. {@code distance} is the Hamming
 * distance to the first of them, absent when there is none or a fingerprint is missing.
 * {@code fingerprint} is null, and {@code error} gives the server's message, for a text the
 * server could not fingerprint.
 */
final class DecisionWriter {
    private final BatchDocs docs;
    private final BatchDeduplicator decided;
    private final Map<Integer, String> textErrors;
    private final int k;

    DecisionWriter(BatchDocs docs, BatchDeduplicator decided, Map<Integer, String> textErrors, int k) {
        this.docs = docs;
        this.decided = decided;
        this.textErrors = textErrors;
        this.k = k;
    }

    /** Writes every decision to {@code out}, one line each, and counts them by reason into {@code counts}. */
    void writeAll(Writer out, long[] counts, Runnable onLine) throws IOException {
        for (int i = 0; i < docs.size(); i++) {
            Reason reason = decided.reason(i);
            counts[reason.ordinal()]++;
            JsonWriter json = new JsonWriter(out);
            json.setHtmlSafe(false);
            write(json, i, reason);
            out.write('\n');
            onLine.run();
        }
        out.flush();
    }

    private void write(JsonWriter json, int i, Reason reason) throws IOException {
        json.beginObject();
        json.name("id").value(docs.id(i));
        json.name("fingerprint");
        if (docs.hasFingerprint(i)) {
            json.value(Fingerprints.format(docs.fingerprint(i)));
        } else {
            json.nullValue();
        }
        json.name("decision").value(reason.keep() ? "keep" : "drop");
        json.name("reason").value(reason.wireName());
        json.name("duplicate_of").beginArray();
        int firstDistance = duplicates(json, i, reason);
        json.endArray();
        if (firstDistance >= 0) {
            json.name("distance").value(firstDistance);
        }
        if (reason == Reason.NO_FINGERPRINT) {
            json.name("error").value(textErrors.get(i));
        }
        json.endObject();
    }

    /** Writes the duplicate ids; returns the distance to the first, or -1. */
    private int duplicates(JsonWriter json, int i, Reason reason) throws IOException {
        switch (reason) {
            case NEAR_DUPLICATE_IN_BATCH -> {
                long fp = docs.fingerprint(i);
                int[] us = decided.tables.within(fp, k, decided.keptRank, decided.rank[i], IndexCalls.MATCH_LIMIT);
                for (int u : us) {
                    json.value(docs.id(decided.order[decided.keptRank[u]]));
                }
                return decided.distance[i];
            }
            case NEAR_DUPLICATE_IN_INDEX -> {
                List<Match> matches = decided.indexMatchesOf(i);
                for (Match m : matches) {
                    json.value(m.id());
                }
                return matches.isEmpty() ? -1 : matches.get(0).distance();
            }
            case OLDER_FETCH_OF_URL, EXACT_DUPLICATE -> {
                int w = decided.winner[i];
                json.value(docs.id(w));
                boolean both = docs.hasFingerprint(i) && docs.hasFingerprint(w);
                return both ? Hamming.distance(docs.fingerprint(i), docs.fingerprint(w)) : -1;
            }
            default -> {
                return -1;
            }
        }
    }
}
