package io.simdex.core.text;

import io.simdex.core.Hashing;

import java.util.Arrays;

/**
 * A 64-bit fingerprint made of one bit of each of 64 MinHash values (b-bit minwise hashing with
 * b = 1, Li and König 2010): two texts whose shingle sets have Jaccard similarity J differ in
 * each bit with probability (1 - J) / 2, so their Hamming distance estimates 32 (1 - J).
 * SimHash bits differ with probability arccos(cos) / pi, which grows with the square root of a
 * small change: two characters replaced in a 20-character Chinese post move SimHash about 9
 * bits and this fingerprint about 6. It fits the same Hamming index as SimHash, so a collection
 * can fingerprint its short texts with it (loadtest/quality measures where it wins).
 *
 * <p>Shingles: each Han character alone, every other letter or digit with the one after it
 * (which may be Han), over the letters and digits of the normalised text (all its characters
 * if it has none); a text of one letter is that letter.
 *
 * <p>Cost: one 64-bit hash per shingle, then per bin and shingle one xor, one multiply and one
 * compare: each bin orders the shingles by {@code (h ^ seed) * odd}, a bijection of the strong
 * hash h with its own seed and multiplier ({@link BinMinima}: eight bins a step with 512-bit
 * vectors). The bit kept is bit 31 of the bin's minimum, which the ordering (decided by the
 * high bits) leaves unbiased. {@link BinOrder#PRODUCTS_32} orders by 32-bit products instead,
 * which vectors of 256 bits multiply eight at a time ({@link BinMinima32}). A buffer of at most 1,024 hashes per
 * text; the {@link #partitioned} form orders each shingle in the 16 bins of its group, from a
 * second buffer of the hashes ordered by group.
 */
public final class BitMinHash {
    private static final int BINS = Long.SIZE;
    private static final long[] SEEDS = new long[BINS];
    private static final long[] MULTIPLIERS = new long[BINS];
    /**
     * Seeds and multipliers of the 32-bit order. English shingles come from a few hundred letter
     * pairs, so where two texts' bins keep different minima, the same few lowest-ordered pairs
     * keep them in every text, and whether their kept bits agree is a property of the draw, bin
     * by bin: over eight draws it ranged 0.47-0.51 (60-word texts of random letters), moving the
     * distance of unrelated texts between 24.4 and 26.6 bits, and with it how many unrelated
     * texts a probe meets and what it finds (loadtest/quality's README, "The 32-bit bin order").
     * These are the draw whose distances on random letters match the 64-bit order's (24.5 bits),
     * so that the candidate distance and sketch bars tuned with it keep their meaning.
     */
    private static final int[] SEEDS_32 = new int[BINS];
    private static final int[] MULTIPLIERS_32 = new int[BINS];
    /** Tags a letter pair, so it never equals a single character's shingle. */
    private static final long PAIR = 1L << 40;
    private static final int KEPT_BIT = 31;
    /**
     * The bit kept of a 32-bit bin's minimum: the minimum of n products lies about 2^32 / n above
     * the lowest int, and the fingerprinted texts have at most 300,000 shingles (the longest
     * short-text boundary times the probe band, two shingles a letter), so its bits below 13
     * are as uniform as the products'.
     */
    private static final int KEPT_BIT_32 = 10;
    /** Shingle groups of {@link #partitioned}: one per 16-bit block, the unit the index keys tables by. */
    private static final int GROUPS = 4;
    private static final int BLOCK_BITS = BINS / GROUPS;
    private static final long BLOCK_MASK = (1L << BLOCK_BITS) - 1;
    private static final long GROUP_SEED = 0x9E3779B97F4A7C15L;
    private static final BinMinima BIN_MINIMA = BinMinima.chosen();
    private static final BinMinima32 BIN_MINIMA_32 = BinMinima32.chosen();

    static {
        for (int k = 0; k < BINS; k++) {
            SEEDS[k] = Hashing.mix64(0x5DEECE66DL + k);
            MULTIPLIERS[k] = Hashing.mix64(0x2545F4914F6CDD1DL + k) | 1;
            SEEDS_32[k] = (int) Hashing.mix64(0x3C6EF372FE9503E3L + k);
            MULTIPLIERS_32[k] = (int) Hashing.mix64(0x7F4A7C159E378571L + k) | 1;
        }
    }

    /**
     * How each bin orders a text's shingles. Over draws of the seeds both estimate the same
     * similarity (each bit differs with probability (1 - J) / 2; what one draw does with English
     * letter pairs: {@link #SEEDS_32}), but they give different fingerprints, so a collection
     * keeps the order it stored with.
     */
    public enum BinOrder {
        /** By the 64-bit product of the shingle's hash and the bin's multiplier; fast only with 512-bit vectors ({@link BinMinima}). */
        PRODUCTS_64,
        /** By the 32-bit product of the hash's low half and the bin's multiplier: 8 or 16 bins a step with 256- or 512-bit vectors ({@link BinMinima32}). */
        PRODUCTS_32
    }

    private BitMinHash() {
    }

    /** The fingerprint of a normalised text (NFKC, lower case: see {@code ContentHash.normalise}), bins ordered by 64-bit products. */
    public static long of(String normalised) {
        return of(normalised, BinOrder.PRODUCTS_64);
    }

    /** The fingerprint of a normalised text, its bins ordered by {@code order}. */
    public static long of(String normalised, BinOrder order) {
        Minima m = new Minima(normalised.length(), false, order);
        m.shingle(normalised);
        return m.bits(0);
    }

    /**
     * The partitioned fingerprint of a normalised text: each shingle belongs to one of
     * {@value #GROUPS} groups by its hash, and 16-bit block t is the 16 bins of block t over the
     * shingles of group t alone (over all shingles when group t has none). An edit touches only
     * the groups of the shingles it adds or removes, so a small edit leaves some group's shingle
     * set, and with it a whole block, unchanged: the bucket of that block holds the near copy,
     * where the unpartitioned fingerprint spreads the same edit over all four blocks. The
     * distance still estimates the Jaccard similarity (each bit differs with probability
     * (1 - J_t) / 2, J_t the group's similarity), with more variance.
     */
    public static long partitioned(String normalised) {
        return partitioned(normalised, BinOrder.PRODUCTS_64);
    }

    /** As {@link #partitioned(String)}, its bins ordered by {@code order}. */
    public static long partitioned(String normalised, BinOrder order) {
        Minima m = new Minima(normalised.length(), true, order);
        m.shingle(normalised);
        long fp = 0;
        for (int t = 0; t < GROUPS; t++) {
            fp |= m.bits(m.groupSizes[t] > 0 ? BINS : 0) & (BLOCK_MASK << (t * BLOCK_BITS));
        }
        return fp;
    }

    /** Whether every group of {@link #partitioned} has a shingle of the text (else its block falls back to the whole text's bins). */
    static boolean everyGroupHasShingles(String normalised) {
        Minima m = new Minima(normalised.length(), true, BinOrder.PRODUCTS_32);
        m.shingle(normalised);
        return Arrays.stream(m.groupSizes).allMatch(n -> n > 0);
    }

    /** How many letters and digits {@link #of} shingles in a normalised text. */
    public static int letters(String normalised) {
        return letters(normalised, Integer.MAX_VALUE - 1);
    }

    /**
     * The letters and digits of a normalised text, counted up to {@code max + 1}: whether a text
     * has more than {@code max} is decided without reading past them. Every text probe asks
     * which side of the short-text boundary it lies on (twice: its fingerprint, its checks),
     * and the whole count of a 300-word text was 3% of its Dedup's CPU.
     */
    public static int letters(String normalised, int max) {
        int n = 0;
        for (int i = 0; i < normalised.length() && n <= max; i++) {
            n += CharClass.isLetterOrDigit(normalised.charAt(i)) ? 1 : 0;
        }
        return n;
    }

    /**
     * The bins' minima over a text's shingles. Shingles are hashed into a buffer, and each
     * bin's minimum is then taken over the buffer ({@link BinMinima}), bin by bin or eight bins
     * at a time: the bins' seeds, multipliers and minima stay in registers, where updating all
     * 64 minima per shingle took 1.1-1.7x the time of the scalar form on 20- and 60-word texts,
     * and over twice for the partitioned form (ShortFingerprintBenchmark). The buffer holds at most
     * {@link #CHUNK} hashes and is folded in when full, so a long text takes no more memory.
     */
    private static final class Minima {
        private static final int CHUNK = 1024;
        /** Whole-text minima from 0; with groups, each group's own bins' minima from {@link #BINS}: of 64-bit products, or null. */
        private final long[] min;
        /** As {@link #min}, of 32-bit products, or null. */
        private final int[] min32;
        /** Shingles of each group so far, null for the whole-text form. */
        final int[] groupSizes;
        private final long[] hashes;
        /** The buffer's hashes ordered by group, for the partitioned form. */
        private final long[] byGroup;
        /** The low halves of a run of hashes, for 32-bit products. */
        private final int[] narrow;
        private int size;

        Minima(int textLength, boolean partitioned, BinOrder order) {
            int bins = partitioned ? 2 * BINS : BINS;
            if (order == BinOrder.PRODUCTS_64) {
                min = new long[bins];
                Arrays.fill(min, Long.MAX_VALUE);
                min32 = null;
            } else {
                min = null;
                min32 = new int[bins];
                Arrays.fill(min32, Integer.MAX_VALUE);
            }
            // At most two shingles a character: the pair it ends and, for a Han character, itself.
            hashes = new long[(int) Math.min(CHUNK, 2L * textLength + 1)];
            groupSizes = partitioned ? new int[GROUPS] : null;
            byGroup = partitioned ? new long[hashes.length] : null;
            narrow = min32 != null ? new int[hashes.length] : null;
        }

        /** The kept bit of each of the {@link #BINS} minima from {@code offset}. */
        long bits(int offset) {
            long fp = 0;
            for (int k = 0; k < BINS; k++) {
                long bit = min != null ? min[offset + k] >>> KEPT_BIT : min32[offset + k] >>> KEPT_BIT_32;
                fp |= (bit & 1L) << k;
            }
            return fp;
        }

        /** Lowers bins [firstBin, firstBin + bins) of the minima from {@code minOffset} over {@code buffer[from..to)}. */
        private void fold(long[] buffer, int from, int to, int firstBin, int bins, int minOffset) {
            if (min != null) {
                BIN_MINIMA.fold(buffer, from, to, SEEDS, MULTIPLIERS, firstBin, bins, min, minOffset);
                return;
            }
            for (int i = from; i < to; i++) {
                narrow[i] = (int) buffer[i];
            }
            BIN_MINIMA_32.fold(narrow, from, to, SEEDS_32, MULTIPLIERS_32, firstBin, bins, min32, minOffset);
        }

        /** Takes the shingles of the text's letters and digits, or of all its characters if it has none. */
        void shingle(String text) {
            if (!shingle(text, true)) {
                shingle(text, false);
            }
            fold();
        }

        /**
         * Adds the shingles of the text's letters and digits ({@code lettersOnly}) or of all its
         * characters; false when there was no character to take.
         */
        private boolean shingle(String text, boolean lettersOnly) {
            char previous = 0;
            boolean any = false;
            boolean previousPairs = false;
            int count = 0;
            for (int i = 0; i < text.length(); i++) {
                char c = text.charAt(i);
                if (lettersOnly && !CharClass.isLetterOrDigit(c)) {
                    continue;
                }
                count++;
                if (previousPairs) {
                    add(PAIR | ((long) previous << Character.SIZE) | c);
                }
                boolean han = isHan(c);
                if (han) {
                    add(c);
                }
                previous = c;
                previousPairs = !han;
                any = true;
            }
            if (count == 1 && previousPairs) {
                add(previous);
            }
            return any;
        }

        private void add(long shingle) {
            hashes[size++] = Hashing.mix64(shingle);
            if (size == hashes.length) {
                fold();
            }
        }

        /** Folds the buffer into the minima and empties it. */
        private void fold() {
            if (groupSizes == null) {
                fold(hashes, 0, size, 0, BINS, 0);
            } else {
                foldByGroup();
            }
            size = 0;
        }

        /**
         * Each group's bins over the buffer's shingles of that group (ordered by group with a
         * counting sort); a block's whole-text bins only while its group has no shingle, the
         * only case that reads them, since a group's count never drops.
         */
        private void foldByGroup() {
            int[] starts = new int[GROUPS + 1];
            for (int i = 0; i < size; i++) {
                starts[group(hashes[i]) + 1]++;
            }
            for (int t = 0; t < GROUPS; t++) {
                starts[t + 1] += starts[t];
            }
            int[] next = Arrays.copyOf(starts, GROUPS);
            for (int i = 0; i < size; i++) {
                long h = hashes[i];
                byGroup[next[group(h)]++] = h;
            }
            for (int t = 0; t < GROUPS; t++) {
                groupSizes[t] += starts[t + 1] - starts[t];
                if (starts[t + 1] > starts[t]) {
                    fold(byGroup, starts[t], starts[t + 1], t * BLOCK_BITS, BLOCK_BITS, BINS);
                }
                if (groupSizes[t] == 0) {
                    fold(hashes, 0, size, t * BLOCK_BITS, BLOCK_BITS, 0);
                }
            }
        }

        private static int group(long hash) {
            return (int) (Hashing.mix64(hash ^ GROUP_SEED) >>> (Long.SIZE - Integer.numberOfTrailingZeros(GROUPS)));
        }
    }

    private static boolean isHan(char c) {
        if (c < 0x2E80) {
            return false;
        }
        return (c >= 0x4E00 && c <= 0x9FFF) || Character.UnicodeScript.of(c) == Character.UnicodeScript.HAN;
    }
}
