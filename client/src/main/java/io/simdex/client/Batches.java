package io.simdex.client;

import java.util.ArrayList;
import java.util.List;

/** Splits a list into consecutive batches of at most a given size. */
final class Batches {
    private Batches() {
    }

    /**
     * Views of {@code items} in order, each of {@code maxSize} elements except possibly the
     * last; an empty list gives no batches. The views share {@code items}' storage.
     */
    static <T> List<List<T>> split(List<T> items, int maxSize) {
        List<List<T>> batches = new ArrayList<>(items.size() / maxSize + 1);
        for (int from = 0; from < items.size(); from += maxSize) {
            batches.add(items.subList(from, Math.min(items.size(), from + maxSize)));
        }
        return batches;
    }
}
