package io.simdex.loadtest.ideal;

import java.util.Arrays;

/** A reusable, growable list of matched fingerprints, so a probe allocates nothing once grown. */
public final class Matches {
    private long[] values = new long[16];
    private int size;

    public int size() {
        return size;
    }

    public long get(int i) {
        return values[i];
    }

    public void clear() {
        size = 0;
    }

    void add(long value) {
        if (size == values.length) {
            values = Arrays.copyOf(values, size * 2);
        }
        values[size++] = value;
    }

    public long[] toArray() {
        return Arrays.copyOf(values, size);
    }
}
