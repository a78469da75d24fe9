package io.simdex.fingerprint;

/**
 * Hamming distance between fingerprints: one XOR and one POPCNT instruction. Total over all
 * 64-bit values: every pair of longs has a distance, signed or not.
 */
public final class Hamming {
    private Hamming() {
    }

    /**
     * Number of differing bits, 0..64: 0 exactly when {@code a == b}, 64 exactly when
     * {@code b == ~a}. Symmetric; the sign bit counts like any other.
     */
    public static int distance(long a, long b) {
        return Long.bitCount(a ^ b);
    }

    /**
     * The indexes of the {@code max} nearest of {@code fps[0..n)} to {@code probe}, ascending;
     * at one distance, the first ones. All of them when there are no more than {@code max}. A
     * counting sort by distance: linear in n, whatever the distances.
     */
    public static int[] nearest(long probe, long[] fps, int n, int max) {
        if (n <= max) {
            int[] all = new int[n];
            for (int i = 0; i < n; i++) {
                all[i] = i;
            }
            return all;
        }
        int[] atDistance = new int[Long.SIZE + 1];
        for (int i = 0; i < n; i++) {
            atDistance[distance(fps[i], probe)]++;
        }
        // Every index below distance `cut`, and the first `room` at `cut`.
        int cut = 0;
        int below = 0;
        while (below + atDistance[cut] < max) {
            below += atDistance[cut++];
        }
        int room = max - below;
        int[] out = new int[max];
        int kept = 0;
        for (int i = 0; i < n; i++) {
            int d = distance(fps[i], probe);
            if (d < cut || d == cut && room-- > 0) {
                out[kept++] = i;
            }
        }
        return out;
    }
}
