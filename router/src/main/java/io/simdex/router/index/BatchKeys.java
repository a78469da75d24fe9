package io.simdex.router.index;

import java.util.Arrays;

/**
 * Distinct ids and fingerprints of one write batch, in open-addressed arrays sized to the batch:
 * every Insert and BulkLoad batch asks, per document, whether its id or fingerprint came earlier,
 * and boxed hash maps grown from empty spent about a tenth of a router's bulk-load CPU on
 * rehashing, boxing and nodes.
 */
final class BatchKeys {
    private BatchKeys() {
    }

    /** Indexes of the last occurrence of each distinct id, in increasing order (all of 0..n-1 when none repeats). */
    static int[] lastOccurrences(String[] ids) {
        int n = ids.length;
        int mask = tableSize(n) - 1;
        int[] slots = new int[mask + 1]; // 1 + the index of the id's latest occurrence so far; 0 is empty
        boolean[] superseded = null;
        int kept = n;
        for (int i = 0; i < n; i++) {
            String id = ids[i];
            int s = spread(id.hashCode()) & mask;
            while (slots[s] != 0 && !ids[slots[s] - 1].equals(id)) {
                s = (s + 1) & mask;
            }
            if (slots[s] != 0) {
                if (superseded == null) {
                    superseded = new boolean[n];
                }
                superseded[slots[s] - 1] = true;
                kept--;
            }
            slots[s] = i + 1;
        }
        int[] out = new int[kept];
        for (int i = 0, j = 0; i < n; i++) {
            if (superseded == null || !superseded[i]) {
                out[j++] = i;
            }
        }
        return out;
    }

    /** A set of fingerprints for at most {@code capacity} adds. */
    static final class Fingerprints {
        private final long[] keys;
        private final boolean[] used;
        private final int mask;

        Fingerprints(int capacity) {
            mask = tableSize(capacity) - 1;
            keys = new long[mask + 1];
            used = new boolean[mask + 1];
        }

        /** Adds {@code fp}; false if it was there. */
        boolean add(long fp) {
            int s = slot(fp);
            if (used[s]) {
                return false;
            }
            used[s] = true;
            keys[s] = fp;
            return true;
        }

        boolean contains(long fp) {
            return used[slot(fp)];
        }

        /** {@code fp}'s slot: where it is, or the empty one where it would go. */
        private int slot(long fp) {
            int s = spread(Long.hashCode(fp)) & mask;
            while (used[s] && keys[s] != fp) {
                s = (s + 1) & mask;
            }
            return s;
        }
    }

    /** The distinct values of {@code fps}, in order of first occurrence. */
    static long[] distinct(long[] fps) {
        Fingerprints seen = new Fingerprints(fps.length);
        long[] out = new long[fps.length];
        int n = 0;
        for (long fp : fps) {
            if (seen.add(fp)) {
                out[n++] = fp;
            }
        }
        return n == fps.length ? out : Arrays.copyOf(out, n);
    }

    /** A power of two at least twice {@code n}: load at most one half, so probe runs stay short. */
    private static int tableSize(int n) {
        return Integer.highestOneBit(Math.max(n, 1) * 2 - 1) << 1;
    }

    /** Fibonacci hashing: the product's high bits rotated low, so keys that differ only high still spread. */
    private static int spread(int h) {
        return Integer.rotateLeft(h * 0x9E3779B9, 16);
    }
}
