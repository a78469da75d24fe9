package io.simdex.server.store;

import java.util.Arrays;

/**
 * A reusable, growable list of fingerprints that a probe appends its matches to, so that a
 * probe allocates nothing once the buffer has grown to the usual match count.
 */
public final class MatchBuffer {
    private long[] values = new long[16];
    private int size;
    /** Sums of bytes read only to bring their cache lines in (BucketTable#touch): kept so the JIT keeps those loads. */
    private int kept;

    public int size() {
        return size;
    }

    public long get(int i) {
        return values[i];
    }

    public void clear() {
        size = 0;
    }

    /** Appends a value, growing the buffer when full. */
    public void add(long value) {
        if (size == values.length) {
            values = Arrays.copyOf(values, size * 2);
        }
        values[size++] = value;
    }

    /** Keeps a value that must be computed but is not needed. */
    public void keep(int value) {
        kept += value;
    }

    public long[] toArray() {
        return Arrays.copyOf(values, size);
    }
}
