package io.simdex.server;

import io.simdex.proto.v1.ShardProbeManyResponse;
import io.simdex.server.store.DocMaps;

import java.util.function.Consumer;
import java.util.function.IntConsumer;
import java.util.function.LongConsumer;

/**
 * The flat form of the shard reads' answers (shard.proto's {@code flat}): counts and packed
 * values instead of a sub-message per probe or per fingerprint. A 100-probe query's ProbeMany
 * answers some 400 probes, most with no match; nested, each is a message to build, size and
 * parse on both sides.
 */
final class FlatAnswers {
    private FlatAnswers() {
    }

    /** Appends one part's matches: a count per probe, then the matches and their generations. */
    static void addMatches(ShardNode.Found[] found, ShardProbeManyResponse.Builder out) {
        for (ShardNode.Found m : found) {
            long[] fps = m.fingerprints();
            long[] gens = m.generations();
            out.addMatchCounts(fps.length);
            for (int i = 0; i < fps.length; i++) {
                out.addMatchFingerprints(fps[i]).addMatchGenerations(gens[i]);
            }
        }
    }

    /** Appends each fingerprint's ids: their count, the ids, and the fingerprint's total. */
    static void addIds(DocMaps.IdList[] found, IntConsumer counts, Consumer<String> values, LongConsumer totals) {
        for (DocMaps.IdList ids : found) {
            counts.accept(ids.ids().length);
            for (String id : ids.ids()) {
                values.accept(id);
            }
            totals.accept(ids.total());
        }
    }
}
