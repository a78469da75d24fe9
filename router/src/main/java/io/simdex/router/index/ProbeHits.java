package io.simdex.router.index;

import io.simdex.fingerprint.Hamming;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One probe's hits as its matches' ids arrive: each id once, at the newest generation it was
 * found in (an id is in two only while a move is half done; of equals, the first stays).
 */
final class ProbeHits {
    /** Past this many hits, ids are found through a map rather than by comparing with each. */
    private static final int LINEAR = 8;

    private final long probe;
    private final List<Hit> hits = new ArrayList<>(2);
    private final long[] atDistance = new long[Candidates.DISTANCES];
    private Map<String, Integer> byId;

    private record Hit(IndexRouter.Hit hit, long generation) {
    }

    ProbeHits(long probe) {
        this.probe = probe;
    }

    void add(String id, long fp, long generation) {
        add(id, fp, generation, -1);
    }

    /** As {@link #add(String, long, long)}, the hit's verified {@code similarity} known (-1: not verified). */
    void add(String id, long fp, long generation, double similarity) {
        int at = indexOf(id);
        if (at < 0) {
            if (byId != null || hits.size() == LINEAR) {
                index().put(id, hits.size());
            }
            hits.add(new Hit(new IndexRouter.Hit(id, fp, Hamming.distance(fp, probe), similarity), generation));
        } else if (hits.get(at).generation() < generation) {
            hits.set(at, new Hit(new IndexRouter.Hit(id, fp, Hamming.distance(fp, probe), similarity), generation));
        }
    }

    /** Counts {@code total} stored ids of {@code fp}, however many of them were added. */
    void count(long fp, long total) {
        atDistance[Math.min(Hamming.distance(fp, probe), atDistance.length - 1)] += total;
    }

    /** The hits, nearest first (then by id), and the counts. */
    Candidates candidates() {
        List<IndexRouter.Hit> out = new ArrayList<>(hits.size());
        for (Hit h : hits) {
            out.add(h.hit());
        }
        out.sort(IndexRouter.Hit.NEAREST_FIRST);
        return new Candidates(out, atDistance);
    }

    private int indexOf(String id) {
        if (byId != null) {
            return byId.getOrDefault(id, -1);
        }
        for (int i = 0; i < hits.size(); i++) {
            if (hits.get(i).hit().id().equals(id)) {
                return i;
            }
        }
        return -1;
    }

    private Map<String, Integer> index() {
        if (byId == null) {
            byId = new HashMap<>();
            for (int i = 0; i < hits.size(); i++) {
                byId.put(hits.get(i).hit().id(), i);
            }
        }
        return byId;
    }
}
