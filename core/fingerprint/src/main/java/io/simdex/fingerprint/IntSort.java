package io.simdex.fingerprint;

/**
 * Stable sort of an int array by a comparator over its values, without boxing: a merge sort.
 * The orderings over columns (positions sorted by score, URL, content hash, distance) use it so
 * that a million documents cost an int each, not an {@code Integer}.
 */
public final class IntSort {
    /** Below this many elements a run is insertion-sorted. */
    private static final int INSERTION_LIMIT = 24;

    /** Compares two ints, like {@link java.util.Comparator} without the boxes. */
    @FunctionalInterface
    public interface IntComparator {
        int compare(int a, int b);
    }

    private IntSort() {
    }

    /**
     * Sorts {@code values} in place by {@code order}; equal elements keep their relative order.
     * An empty or one-element array is left as it is; allocates one copy of {@code values}.
     */
    public static void sort(int[] values, IntComparator order) {
        int[] buffer = values.clone();
        mergeSort(buffer, values, 0, values.length, order);
    }

    /** Sorts src[from, to) into dst[from, to); src and dst start with equal contents. */
    private static void mergeSort(int[] src, int[] dst, int from, int to, IntComparator order) {
        if (to - from <= INSERTION_LIMIT) {
            insertionSort(dst, from, to, order);
            return;
        }
        int mid = (from + to) >>> 1;
        mergeSort(dst, src, from, mid, order);
        mergeSort(dst, src, mid, to, order);
        for (int out = from, left = from, right = mid; out < to; out++) {
            if (right >= to || (left < mid && order.compare(src[left], src[right]) <= 0)) {
                dst[out] = src[left++];
            } else {
                dst[out] = src[right++];
            }
        }
    }

    private static void insertionSort(int[] a, int from, int to, IntComparator order) {
        for (int i = from + 1; i < to; i++) {
            int v = a[i];
            int j = i - 1;
            while (j >= from && order.compare(a[j], v) > 0) {
                a[j + 1] = a[j];
                j--;
            }
            a[j + 1] = v;
        }
    }
}
