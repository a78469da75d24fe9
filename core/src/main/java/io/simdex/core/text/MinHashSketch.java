package io.simdex.core.text;

import java.util.Arrays;

/**
 * A one-permutation MinHash sketch of a text's character n-grams with b-bit values: a few dozen
 * bytes from which the Jaccard similarity of two texts' n-gram sets is estimated without the
 * texts.
 *
 * <h2>Design</h2>
 * Each distinct n-gram is hashed once to 64 bits (n <= 4 characters are packed exactly, so
 * distinct n-grams never share a hash before mixing, and the mixer is a bijection). The high 32
 * bits pick one of {@code bins} bins, the low 32 are the value; each bin keeps its smallest
 * value (Li, Owen and Zhang, "One Permutation Hashing", NIPS 2012). An empty bin takes the value
 * of the first non-empty bin on a walk that depends only on the bin's index and the step
 * ("optimal densification", Shrivastava, ICML 2017), so two sets with the same non-empty bins
 * fill their empty ones alike. Of each bin the low {@code bits} bits are kept (Li and König,
 * "b-Bit Minwise Hashing", WWW 2010).
 *
 * <h2>Estimator and error</h2>
 * Two sketches agree in a bin with probability {@code P = J + (1 - J) 2^-b} (the min is shared
 * with probability J; otherwise the low bits collide by chance). With m of K bins equal,
 * {@link #estimate} returns {@code (m/K - 2^-b) / (1 - 2^-b)} clamped to 0..1, whose standard
 * deviation is {@code sqrt(P (1 - P) / K) / (1 - 2^-b)} when the sets have many more elements
 * than bins (densified bins add correlation on smaller sets): for K = 60, b = 6 and J = 0.5,
 * about 0.066.
 *
 * <p>Instances are immutable; values are bytes, each below {@code 2^bits}.
 */
public final class MinHashSketch {
    /** Most bits a bin keeps: its stored form is one ASCII character per bin. */
    public static final int MAX_BITS = 6;
    /** Most characters per n-gram. */
    public static final int MAX_NGRAM = 8;
    /** First character of the stored form: a value v is {@code (char) (DIGIT_ZERO + v)}. */
    private static final char DIGIT_ZERO = '0';
    private static final long GOLDEN = 0x9E3779B97F4A7C15L;

    private final byte[] values;
    private final int bits;

    private MinHashSketch(byte[] values, int bits) {
        this.values = values;
        this.bits = bits;
    }

    /**
     * The sketch of {@code text}'s character n-grams (as given: callers normalise). A text of
     * fewer than n characters is one n-gram, itself; the empty text is one empty n-gram.
     *
     * @throws IllegalArgumentException if bins is outside 1..4096, bits outside 1..6 or n outside 1..8
     */
    public static MinHashSketch of(CharSequence text, int n, int bins, int bits) {
        check(n, bins, bits);
        long[] min = new long[bins];
        Arrays.fill(min, Long.MAX_VALUE);
        int len = text.length();
        if (len <= n) {
            add(min, shingle(text, 0, len));
        } else {
            for (int i = 0; i + n <= len; i++) {
                add(min, shingle(text, i, n));
            }
        }
        return new MinHashSketch(densify(min, bits), bits);
    }

    /**
     * {@link #of} over the letters and digits of {@code text} ({@link Sketcher#lettersAndDigits}),
     * for n up to 4, without copying them out: each n-gram's hash is its n characters packed in
     * a window that rolls past every other character. Null when there are fewer than n letters
     * and digits (the caller sketches the copy then, whose rules for short texts apply).
     */
    static MinHashSketch ofLettersAndDigits(String text, int n, int bins, int bits) {
        check(n, bins, bits);
        if (n > PACKED_NGRAM) {
            throw new IllegalArgumentException("n-gram size " + n + " over " + PACKED_NGRAM + " is not packed");
        }
        long marker = n;
        for (int i = 0; i < n; i++) {
            marker <<= Character.SIZE;
        }
        long window = 0;
        long windowMask = n == PACKED_NGRAM ? -1L : (1L << (Character.SIZE * n)) - 1;
        long[] min = new long[bins];
        Arrays.fill(min, Long.MAX_VALUE);
        int seen = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (CharClass.isLetterOrDigit(c)) {
                window = (window << Character.SIZE | c) & windowMask;
                if (++seen >= n) {
                    add(min, mix(marker | window));
                }
            }
        }
        return seen < n ? null : new MinHashSketch(densify(min, bits), bits);
    }

    /** Most characters of an n-gram packed exactly into its 64-bit hash. */
    private static final int PACKED_NGRAM = Long.SIZE / Character.SIZE;

    /** A sketch from its {@link #toString()} form and bits per bin; null when {@code stored} is not one. */
    public static MinHashSketch parse(CharSequence stored, int bits) {
        byte[] values = new byte[stored.length()];
        for (int i = 0; i < values.length; i++) {
            int v = stored.charAt(i) - DIGIT_ZERO;
            if (v < 0 || v >= 1 << bits) {
                return null;
            }
            values[i] = (byte) v;
        }
        return values.length == 0 ? null : new MinHashSketch(values, bits);
    }

    /**
     * Estimated Jaccard similarity of the two sketched sets, 0..1 (see the class comment for
     * its error). Sketches of different sizes or bits estimate 0.
     */
    public double estimate(MinHashSketch other) {
        if (other.values.length != values.length || other.bits != bits) {
            return 0;
        }
        int equal = 0;
        for (int i = 0; i < values.length; i++) {
            equal += values[i] == other.values[i] ? 1 : 0;
        }
        return estimate(equal);
    }

    /**
     * As {@link #estimate(MinHashSketch)} against the sketch whose {@link #toString()} form is
     * {@code stored[from..]}, without parsing it into an instance: -1 when that is not the form
     * of a sketch with this one's bins and bits (a length other than {@link #bins()}, or a
     * character that is no {@code bits}-bit value). Verification reads a stored sketch per
     * candidate, and a text Dedup has hundreds of candidates to distance 7 (DedupTextBenchmark).
     */
    public double estimateStored(CharSequence stored, int from) {
        return estimateStored(stored, from, bits);
    }

    /**
     * As {@link #estimateStored(CharSequence, int)} against a stored form that keeps only the low
     * {@code lowBits} bits of each bin (the {@code lowBits}-bit sketch of the same text): bins
     * compared on those bits, the estimate corrected for their chance agreement
     * {@code 2^-lowBits}. -1 also when {@code lowBits} is outside 1..{@link #bits()}.
     */
    public double estimateStored(CharSequence stored, int from, int lowBits) {
        if (stored.length() - from != values.length || lowBits < 1 || lowBits > bits) {
            return -1;
        }
        int mask = (1 << lowBits) - 1;
        int equal = 0;
        for (int i = 0; i < values.length; i++) {
            int v = stored.charAt(from + i) - DIGIT_ZERO;
            if (v < 0 || v > mask) {
                return -1;
            }
            equal += v == (values[i] & mask) ? 1 : 0;
        }
        return estimate(equal, lowBits);
    }

    /**
     * This sketch with only the low {@code lowBits} bits of each bin: the {@code lowBits}-bit
     * sketch of the same text.
     *
     * @throws IllegalArgumentException if lowBits is outside 1..{@link #bits()}
     */
    public MinHashSketch lowBits(int lowBits) {
        if (lowBits < 1 || lowBits > bits) {
            throw new IllegalArgumentException("low bits " + lowBits + " outside 1.." + bits);
        }
        byte[] out = new byte[values.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = (byte) (values[i] & ((1 << lowBits) - 1));
        }
        return new MinHashSketch(out, lowBits);
    }

    private double estimate(int equal) {
        return estimate(equal, bits);
    }

    private double estimate(int equal, int bits) {
        return estimate(equal, values.length, bits);
    }

    /**
     * The estimate of the class comment from {@code equal} of {@code bins} bins of {@code bits}
     * bits agreeing, clamped to 0..1: for sketches compared in a packed form.
     */
    public static double estimate(int equal, int bins, int bits) {
        double chance = 1.0 / (1 << bits);
        double j = ((double) equal / bins - chance) / (1 - chance);
        return Math.max(0, Math.min(1, j));
    }

    public int bins() {
        return values.length;
    }

    public int bits() {
        return bits;
    }

    /** The value of bin {@code i}, below {@code 2^bits}. */
    public int value(int i) {
        return values[i];
    }

    /** One ASCII character per bin ('0' + value): {@link #bins()} bytes in UTF-8. */
    @Override
    public String toString() {
        char[] out = new char[values.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = (char) (DIGIT_ZERO + values[i]);
        }
        return new String(out);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof MinHashSketch s && s.bits == bits && Arrays.equals(s.values, values);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(values) * 31 + bits;
    }

    private static void check(int n, int bins, int bits) {
        if (n < 1 || n > MAX_NGRAM) {
            throw new IllegalArgumentException("n-gram size " + n + " outside 1.." + MAX_NGRAM);
        }
        if (bins < 1 || bins > 4096) {
            throw new IllegalArgumentException("bins " + bins + " outside 1..4096");
        }
        if (bits < 1 || bits > MAX_BITS) {
            throw new IllegalArgumentException("bits " + bits + " outside 1.." + MAX_BITS);
        }
    }

    /** The n-gram's 64-bit hash: up to 4 chars packed exactly, longer ones folded, then mixed. */
    private static long shingle(CharSequence text, int from, int n) {
        long h = n;
        for (int i = from; i < from + n; i++) {
            h = n <= PACKED_NGRAM ? (h << Character.SIZE) | text.charAt(i) : h * GOLDEN + text.charAt(i);
        }
        return mix(h);
    }

    private static void add(long[] min, long hash) {
        int bin = (int) (((hash >>> 32) * min.length) >>> 32);
        long value = hash & 0xFFFF_FFFFL;
        if (value < min[bin]) {
            min[bin] = value;
        }
    }

    /** Fills empty bins by a walk that depends only on (bin, step), then keeps the low bits. */
    private static byte[] densify(long[] min, int bits) {
        byte[] out = new byte[min.length];
        int mask = (1 << bits) - 1;
        for (int i = 0; i < min.length; i++) {
            long v = min[i];
            for (int step = 1; v == Long.MAX_VALUE; step++) {
                long h = mix(((long) i << 32) | step);
                v = min[(int) (((h >>> 32) * min.length) >>> 32)];
            }
            out[i] = (byte) (v & mask);
        }
        return out;
    }

    /** A bijective 64-bit mixer (the finaliser of SplitMix64). */
    static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
