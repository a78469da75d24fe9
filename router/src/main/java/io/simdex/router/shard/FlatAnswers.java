package io.simdex.router.shard;

import io.simdex.proto.v1.ShardProbeManyResponse;
import io.simdex.proto.v1.ShardResolveResponse;

import java.util.List;

/**
 * Reads the shard reads' answers in either form: the flat one this router asks for (counts and
 * packed values, shard.proto's {@code flat}), or the nested one a node of an older version sends
 * (a message per probe, an IdList per fingerprint). A 100-probe query's ProbeMany answers some
 * 400 probes, most with no match: flat, they cost a count each and no object.
 */
final class FlatAnswers {
    private FlatAnswers() {
    }

    /** Each part's matches, probe by probe; {@code fps[k]} are part k's probes as sent. */
    static Found[][] parts(ShardProbeManyResponse r, long[][] fps) {
        Found[][] out = new Found[r.getPartsCount() > 0 ? r.getPartsCount() : fps.length][];
        if (r.getPartsCount() > 0) {
            for (int p = 0; p < out.length; p++) {
                out[p] = RemoteShardClient.found(r.getParts(p));
            }
            return out;
        }
        long[] matches = RemoteShardClient.unboxed(r.getMatchFingerprintsList());
        long[] gens = RemoteShardClient.unboxed(r.getMatchGenerationsList());
        int probe = 0;
        int at = 0;
        for (int p = 0; p < out.length; p++) {
            Found[] part = new Found[fps[p].length];
            for (int i = 0; i < part.length; i++) {
                int n = r.getMatchCounts(probe++);
                part[i] = n == 0 ? Found.NONE : new Found(slice(matches, at, n), slice(gens, at, n));
                at += n;
            }
            out[p] = part;
        }
        return out;
    }

    /** The ids of a ProbeMany's resolved matches, parallel to its {@code resolved}. */
    static Ids[] resolvedIds(ShardProbeManyResponse r) {
        int n = r.getResolved().getFingerprintsCount();
        if (r.getResolvedIdsCount() == n) {
            return RemoteShardClient.ids(r.getResolvedIdsList());
        }
        return flat(n, r.getResolvedIdCountsList(), r.getResolvedIdValuesList(), r.getResolvedTotalsList());
    }

    /** A ResolveIds answer for {@code n} fingerprints. */
    static Ids[] ids(ShardResolveResponse r, int n) {
        if (r.getIdsCount() == n) {
            return RemoteShardClient.ids(r.getIdsList());
        }
        return flat(n, r.getIdCountsList(), r.getIdValuesList(), r.getTotalsList());
    }

    private static Ids[] flat(int n, List<Integer> counts, List<String> values, List<Long> totals) {
        if (counts.size() != n || totals.size() != n) {
            throw new IllegalStateException("node answered ids for " + counts.size() + " fingerprints, asked for " + n);
        }
        long[] all = RemoteShardClient.unboxed(totals);
        Ids[] out = new Ids[n];
        int at = 0;
        for (int i = 0; i < n; i++) {
            int k = counts.get(i);
            String[] ids = new String[k];
            for (int j = 0; j < k; j++) {
                ids[j] = values.get(at++);
            }
            out[i] = k == 0 && all[i] == 0 ? Ids.NONE : new Ids(ids, all[i]);
        }
        return out;
    }

    private static long[] slice(long[] values, int from, int n) {
        long[] out = new long[n];
        System.arraycopy(values, from, out, 0, n);
        return out;
    }
}
