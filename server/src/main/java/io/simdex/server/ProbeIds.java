package io.simdex.server;

import com.google.protobuf.ByteString;
import io.simdex.core.Partitions;
import io.simdex.fingerprint.Hamming;
import io.simdex.proto.v1.FingerprintList;
import io.simdex.proto.v1.IdList;
import io.simdex.proto.v1.ShardProbeManyResponse;
import io.simdex.server.store.DocMaps;

import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

import static io.simdex.server.Calls.invalid;

/**
 * The ids a ProbeMany resolves beside its matches: those of every distinct (fingerprint,
 * generation) match whose fingerprint falls in a partition the caller set in its bitmap (the
 * partitions of the replica group it read this node for, so the ids come from the same replica
 * a ResolveIds would have read). Saves the router a second round trip per query.
 *
 * <p>With a {@code nearest} limit, only each probe's nearest matches are resolved: a router
 * that verifies at most that many candidates of a probe reads no ids of the others, so a
 * crowded store's far candidates cost this node no id lookups. A probe is a part's fingerprint
 * XOR the part's flip, so the matches of one probe's neighbour buckets meet under it.
 */
final class ProbeIds {
    /** Bytes of a partition bitmap: one bit per partition. */
    static final int BITMAP_BYTES = Partitions.COUNT / Byte.SIZE;

    private final byte[] partitions;
    /** Matches resolved per probe at most, its nearest; 0: all. */
    private final int nearest;
    /** With {@link #nearest}: each probe's distinct matches in the order found, before the cut. */
    private final Map<Long, Set<Pair>> byProbe = new LinkedHashMap<>();
    private final Set<Pair> seen = new HashSet<>();
    private long[] fps = new long[16];
    private long[] gens = new long[16];
    private int n;

    private record Pair(long fp, long generation) {
    }

    private ProbeIds(byte[] partitions, int nearest) {
        this.partitions = partitions;
        this.nearest = nearest;
    }

    /**
     * null when the request asks for no ids; INVALID_ARGUMENT for a bitmap of the wrong size.
     * {@code nearest}: resolve at most this many matches a probe, its nearest; 0: all.
     */
    static ProbeIds of(ByteString bitmap, int nearest) {
        if (bitmap.isEmpty()) {
            return null;
        }
        if (bitmap.size() != BITMAP_BYTES) {
            throw invalid("resolve_partitions of " + bitmap.size() + " bytes, not 0 or " + BITMAP_BYTES);
        }
        if (nearest < 0) {
            throw invalid("resolve_nearest " + Integer.toUnsignedString(nearest) + " is above " + Integer.MAX_VALUE);
        }
        return new ProbeIds(bitmap.toByteArray(), nearest);
    }

    /**
     * Notes one part's matches for resolving: {@code matches[i]} those of {@code probed[i]}, a
     * fingerprint that differs from its probe in the bits {@code flip}.
     */
    void add(ShardNode.Found[] matches, long[] probed, long flip) {
        for (int j = 0; j < matches.length; j++) {
            ShardNode.Found m = matches[j];
            Set<Pair> probe = nearest > 0 && m.fingerprints().length > 0
                    ? byProbe.computeIfAbsent(probed[j] ^ flip, k -> new LinkedHashSet<>()) : null;
            for (int i = 0; i < m.fingerprints().length; i++) {
                long fp = m.fingerprints()[i];
                int p = Partitions.ofFingerprint(fp);
                if ((partitions[p >>> 3] & (1 << (p & 7))) == 0) {
                    continue;
                }
                Pair pair = new Pair(fp, m.generations()[i]);
                if (probe != null) {
                    probe.add(pair);
                } else {
                    note(pair);
                }
            }
        }
    }

    /** With {@link #nearest}: the nearest of each probe's matches, once each, become the ones to resolve. */
    private void cut() {
        for (Map.Entry<Long, Set<Pair>> e : byProbe.entrySet()) {
            if (e.getValue().size() <= nearest) {
                e.getValue().forEach(this::note); // most probes: nothing to cut, no arrays to make
                continue;
            }
            Pair[] found = e.getValue().toArray(Pair[]::new);
            long[] fingerprints = new long[found.length];
            for (int i = 0; i < found.length; i++) {
                fingerprints[i] = found[i].fp();
            }
            for (int i : Hamming.nearest(e.getKey(), fingerprints, found.length, nearest)) {
                note(found[i]);
            }
        }
        byProbe.clear();
    }

    /** Notes a pair to resolve, once. */
    private void note(Pair pair) {
        if (seen.add(pair)) {
            append(pair.fp(), pair.generation());
        }
    }

    /** The (fingerprint, generation) pairs to resolve, as {@link #resolve} resolves them. */
    ShardNode.Found pending() {
        cut();
        return new ShardNode.Found(Arrays.copyOf(fps, n), Arrays.copyOf(gens, n));
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
        ShardNode.Found pending = pending();
        long[] f = pending.fingerprints();
        long[] g = pending.generations();
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
