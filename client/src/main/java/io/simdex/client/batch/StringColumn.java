package io.simdex.client.batch;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Append-only strings packed as UTF-8 in one byte array, with an int offset per entry: a
 * million ids cost their bytes plus 4 bytes each, not a String object each. Entry {@code i} is
 * absent (null) when it was added as null. Not thread-safe.
 */
final class StringColumn {
    private static final int ABSENT = -1;

    private byte[] bytes = new byte[1 << 12];
    private int used;
    // starts[i] is entry i's first byte, or ABSENT; starts[size] is the end of the last entry.
    private int[] starts = new int[1 << 8];
    private int[] ends = new int[1 << 8];
    private int size;

    /** Appends {@code value} (null for absent) as entry {@link #size()}. */
    void add(String value) {
        if (size == starts.length) {
            starts = Arrays.copyOf(starts, size * 2);
            ends = Arrays.copyOf(ends, size * 2);
        }
        if (value == null) {
            starts[size] = ABSENT;
            ends[size] = ABSENT;
        } else {
            byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
            ensureBytes(utf8.length);
            System.arraycopy(utf8, 0, bytes, used, utf8.length);
            starts[size] = used;
            used += utf8.length;
            ends[size] = used;
        }
        size++;
    }

    int size() {
        return size;
    }

    boolean isPresent(int i) {
        return starts[i] != ABSENT;
    }

    /** Entry {@code i}, or null when absent. */
    String get(int i) {
        return isPresent(i) ? new String(bytes, starts[i], ends[i] - starts[i], StandardCharsets.UTF_8) : null;
    }

    /** Bytes of entry {@code i} in UTF-8; 0 when absent. */
    int byteLength(int i) {
        return isPresent(i) ? ends[i] - starts[i] : 0;
    }

    /** Unsigned byte order of two present entries, which is code-point order. */
    int compare(int i, int j) {
        return Arrays.compareUnsigned(bytes, starts[i], ends[i], bytes, starts[j], ends[j]);
    }

    private void ensureBytes(int more) {
        long needed = (long) used + more;
        if (needed > Integer.MAX_VALUE - 8) {
            throw new IllegalStateException("more than 2 GiB of strings in one batch column");
        }
        if (needed > bytes.length) {
            bytes = Arrays.copyOf(bytes, (int) Math.min(Integer.MAX_VALUE - 8, Math.max(needed, 2L * bytes.length)));
        }
    }
}
