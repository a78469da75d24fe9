package io.simdex.client.batch;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The brute-force model of dedup-batch's near-duplicate decisions: documents one at a time in
 * priority order, each compared with every stored and every kept one. O(n * (n + index)).
 */
final class SequentialReference {
    /** The reference decision of one document. */
    record Expected(boolean keep, List<String> keptBefore, List<String> stored, int nearestKept, int nearestStored) {
    }

    private SequentialReference() {
    }

    /** Decisions keyed by id, for documents given in priority order. */
    static Map<String, Expected> decide(Map<String, Long> inPriorityOrder, Map<String, Long> index, int k) {
        Map<String, Expected> out = new LinkedHashMap<>();
        List<Map.Entry<String, Long>> kept = new ArrayList<>();
        for (Map.Entry<String, Long> doc : inPriorityOrder.entrySet()) {
            long fp = doc.getValue();
            List<Map.Entry<String, Long>> nearKept = within(kept, fp, k);
            List<Map.Entry<String, Long>> nearStored = within(new ArrayList<>(index.entrySet()), fp, k);
            boolean keep = nearKept.isEmpty() && nearStored.isEmpty();
            if (keep) {
                kept.add(doc);
            }
            out.put(doc.getKey(), new Expected(keep, ids(nearKept), ids(nearStored), nearest(nearKept, fp), nearest(nearStored, fp)));
        }
        return out;
    }

    /** Entries within k of fp, nearest first, ties in list order (stable sort). */
    private static List<Map.Entry<String, Long>> within(List<Map.Entry<String, Long>> from, long fp, int k) {
        List<Map.Entry<String, Long>> out = new ArrayList<>();
        for (Map.Entry<String, Long> e : from) {
            if (Long.bitCount(e.getValue() ^ fp) <= k) {
                out.add(e);
            }
        }
        out.sort(Comparator.comparingInt(e -> Long.bitCount(e.getValue() ^ fp)));
        return out;
    }

    private static List<String> ids(List<Map.Entry<String, Long>> entries) {
        return entries.stream().map(Map.Entry::getKey).toList();
    }

    private static int nearest(List<Map.Entry<String, Long>> entries, long fp) {
        return entries.isEmpty() ? -1 : Long.bitCount(entries.get(0).getValue() ^ fp);
    }
}
