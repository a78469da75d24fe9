package io.simdex.server;

import com.google.protobuf.ByteString;
import io.simdex.core.Partitions;
import io.simdex.proto.v1.FingerprintList;
import io.simdex.proto.v1.IdList;
import io.simdex.proto.v1.ShardProbeManyResponse;
import io.simdex.server.store.DocMaps;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;

import static io.simdex.server.Calls.invalid;

/**
 * The ids a ProbeMany resolves beside its matches: those of every distinct (fingerprint,
 * generation) match whose fingerprint falls in a partition the caller set in its bitmap (the
 * partitions of the replica group it read this node for, so the ids come from the same replica
 * a ResolveIds would have read). Saves the router a second round trip per query.
 */
final class ProbeIds {
    /** Bytes of a partition bitmap: one bit per partition. */
    static final int BITMAP_BYTES = Partitions.COUNT / Byte.SIZE;

    private final byte[] partitions;
    private final Set<Pair> seen = new HashSet<>();
    private long[] fps = new long[16];
    private long[] gens = new long[16];
    private int n;

    private record Pair(long fp, long generation) {
    }

    private ProbeIds(byte[] partitions) {
        this.partitions = partitions;
    }

    /** null when the request asks for no ids; INVALID_ARGUMENT for a bitmap of the wrong size. */
    static ProbeIds of(ByteString bitmap) {
        if (bitmap.isEmpty()) {
            return null;
        }
        if (bitmap.size() != BITMAP_BYTES) {
            throw invalid("resolve_partitions of " + bitmap.size() + " bytes, not 0 or " + BITMAP_BYTES);
        }
        return new ProbeIds(bitmap.toByteArray());
    }

    /** Notes one part's matches for resolving. */
    void add(ShardNode.Found[] matches) {
        for (ShardNode.Found m : matches) {
            for (int i = 0; i < m.fingerprints().length; i++) {
                long fp = m.fingerprints()[i];
                int p = Partitions.ofFingerprint(fp);
                if ((partitions[p >>> 3] & (1 << (p & 7))) != 0 && seen.add(new Pair(fp, m.generations()[i]))) {
                    append(fp, m.generations()[i]);
                }
            }
        }
    }

    private void append(long fp, long generation) {
        if (n == fps.length) {
            fps = Arrays.copyOf(fps, n * 2);
            gens = Arrays.copyOf(gens, n * 2);
        }
        fps[n] = fp;
        gens[n] = generation;
        n++;
    }

    /** Resolves the noted matches on {@code node} into the response, in its flat fields or as IdLists. */
    void resolve(ShardNode node, String collection, int limit, boolean flat, ShardProbeManyResponse.Builder out) {
        long[] f = Arrays.copyOf(fps, n);
        long[] g = Arrays.copyOf(gens, n);
        DocMaps.IdList[] found = node.resolveIds(collection, g, f, limit);
        FingerprintList.Builder keys = FingerprintList.newBuilder();
        for (int i = 0; i < n; i++) {
            keys.addFingerprints(f[i]).addGenerations(g[i]);
        }
        out.setResolved(keys);
        if (flat) {
            FlatAnswers.addIds(found, out::addResolvedIdCounts, out::addResolvedIdValues, out::addResolvedTotals);
            return;
        }
        for (int i = 0; i < n; i++) {
            out.addResolvedIds(IdList.newBuilder().addAllIds(Arrays.asList(found[i].ids())).setTotal(found[i].total()));
        }
    }
}
