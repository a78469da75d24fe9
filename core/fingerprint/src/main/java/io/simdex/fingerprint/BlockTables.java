package io.simdex.fingerprint;

/**
 * The four permuted tables of the SimHash index: table {@code t} keys a fingerprint by its
 * 16-bit block {@code t} and keeps the other 48 bits as the entry. A probe at distance k <= 3
 * scans, in each table, only the bucket whose key equals the probe's block.
 *
 * <h2>Why four 16-bit blocks find everything within 3</h2>
 * Split 64 bits into k + 1 = 4 disjoint blocks. If two fingerprints differ in at most 3 bits,
 * those bits fall into at most 3 blocks, so at least one block is equal in both (pigeonhole).
 * The bucket of that block's table therefore holds the neighbour: scanning the four matching
 * buckets has recall 1 for every distance <= 3 (Manku, Jain, Das Sarma, "Detecting
 * Near-Duplicates for Web Crawling", WWW 2007, section 3.1). At distance 4 the guarantee ends:
 * four flipped bits can land one per block.
 *
 * <h2>Bit layout</h2>
 * <pre>
 *   bit 63                                                   bit 0
 *   +--------------+--------------+--------------+--------------+
 *   |   block 3    |   block 2    |   block 1    |   block 0    |
 *   +--------------+--------------+--------------+--------------+
 *   residue(t) = the 48 bits left when block t is cut out, lower blocks staying in place
 *   and higher blocks moving down 16 bits.
 * </pre>
 * Equal blocks make the residues' XOR carry every differing bit, so the Hamming distance of two
 * fingerprints in the same bucket is the popcount of their residues' XOR: the scan never needs
 * to rebuild a full fingerprint except for a match.
 */
public final class BlockTables {
    /** Tables, one per 16-bit block. */
    public static final int TABLES = 4;
    /** Bits per block and table key. */
    public static final int BLOCK_BITS = 16;
    /** Largest distance the four tables answer with full recall. */
    public static final int MAX_DISTANCE = TABLES - 1;
    /**
     * Largest distance found by also probing, in every table, the 16 buckets whose key differs
     * from the probe's block in one bit (with a residue threshold one lower). Within distance 7,
     * the differing bits cannot put 2 or more into each of the 4 blocks (that takes 8), so some
     * block differs in at most one bit: its bucket or a one-bit neighbour holds the fingerprint.
     */
    public static final int MAX_NEIGHBOUR_DISTANCE = 2 * TABLES - 1;
    /**
     * Largest candidate distance a probe of the one-bit neighbour buckets may ask for. Beyond
     * {@link #MAX_NEIGHBOUR_DISTANCE} the answer is not every fingerprint within the distance but
     * those the probed buckets hold (some block within one bit of the probe's): a candidate
     * source for fingerprints verified afterwards, as a short text's MinHash fingerprint is by
     * its sketch. The same buckets are scanned; a random 48-bit residue lies within 11 bits (a
     * neighbour bucket's threshold) about once in 9,000 entries and within 12 (the probe's own
     * bucket) once in 2,800, so a probe of a 50M-document table adds about 6 random candidates.
     */
    public static final int MAX_CANDIDATE_DISTANCE = 12;
    /**
     * How many tables, 0 to {@value #TABLES}, a probe within {@code maxDistance} also reads at
     * the 16 one-bit neighbours of its block (tables 0 up to that), besides every table's own
     * bucket: none within 3, {@code maxDistance - 3} up to 7, all four beyond 7.
     *
     * <p>Why fewer than four find everything up to 7: a fingerprint that shares no block with
     * the probe (one that does is in that table's own bucket) differs in every block. If j
     * blocks differ in one bit and the others in two or more, {@code j + 2 (4 - j) <= d}, so
     * {@code j >= 8 - d}, and any {@code d - 3} tables include one of those j: within 5 a probe
     * reads 36 buckets, not 68. Beyond 7 the answer is what the buckets hold
     * ({@link #MAX_CANDIDATE_DISTANCE}), so all of them are read, as before.
     */
    public static int neighbourTables(int maxDistance) {
        if (maxDistance <= MAX_DISTANCE) {
            return 0;
        }
        return maxDistance <= MAX_NEIGHBOUR_DISTANCE ? maxDistance - MAX_DISTANCE : TABLES;
    }

    /** Distinct keys per table. */
    public static final int KEYS_PER_TABLE = 1 << BLOCK_BITS;
    /** Bits of a residue. */
    public static final int RESIDUE_BITS = Long.SIZE - BLOCK_BITS;

    /** The low {@value #BLOCK_BITS} bits: one block once shifted down. */
    private static final long BLOCK_MASK = (1L << BLOCK_BITS) - 1;
    /** The low {@value #RESIDUE_BITS} bits: a residue. */
    private static final long RESIDUE_MASK = (1L << RESIDUE_BITS) - 1;

    private BlockTables() {
    }

    /**
     * Block {@code table} of {@code fingerprint}, 0..65535: bits {@code 16 * table} to
     * {@code 16 * table + 15}, so block 3 of a negative fingerprint holds the sign bit.
     * {@code table} must be 0..3; it is not checked (callers loop over {@link #TABLES}).
     */
    public static int block(long fingerprint, int table) {
        return (int) ((fingerprint >>> (table * BLOCK_BITS)) & BLOCK_MASK);
    }

    /**
     * The 48 bits of {@code fingerprint} other than block {@code table}, packed low; bits 48..63
     * of the result are 0. Table 0 gives {@code fingerprint >>> 16}, table 3 the low 48 bits.
     */
    public static long residue(long fingerprint, int table) {
        int shift = table * BLOCK_BITS;
        long low = fingerprint & lowBits(shift);
        long high = (fingerprint >>> shift) >>> BLOCK_BITS;
        return (low | (high << shift)) & RESIDUE_MASK;
    }

    /**
     * Inverse of {@link #block} and {@link #residue}: the fingerprint with that block and
     * residue. Bits 48..63 of {@code residue} are ignored; {@code block} must be 0..65535 (not
     * checked: it comes from {@link #block} or a table key).
     */
    public static long fingerprint(int table, int block, long residue) {
        int shift = table * BLOCK_BITS;
        long low = residue & lowBits(shift);
        long high = (residue >>> shift) << shift;
        return low | ((long) block << shift) | ((high << BLOCK_BITS));
    }

    /**
     * {@code fps[0..n)} reordered so that each block of {@code table} is one run, in block
     * order, keeping the given order within a run: a counting sort on the 16-bit key, two linear
     * passes, where a comparison sort of a bulk load's window would cost log n passes. Entries
     * from {@code n} on are ignored; {@code n = 0} gives an empty array.
     */
    public static long[] groupByBlock(long[] fps, int n, int table) {
        int[] starts = new int[KEYS_PER_TABLE + 1];
        for (int i = 0; i < n; i++) {
            starts[block(fps[i], table) + 1]++;
        }
        for (int b = 0; b < KEYS_PER_TABLE; b++) {
            starts[b + 1] += starts[b];
        }
        long[] out = new long[n];
        for (int i = 0; i < n; i++) {
            out[starts[block(fps[i], table)]++] = fps[i];
        }
        return out;
    }

    /**
     * One number per (table, block) bucket, for hashing to an owner: table 0 block 0 is 0,
     * table 3 block 65535 is {@code 4 * 65536 - 1}, and distinct buckets get distinct keys.
     */
    public static int bucketKey(int table, int block) {
        return (table << BLOCK_BITS) | block;
    }

    /** The low {@code bits} bits set, 0 <= bits < 64: what sits below block {@code bits / 16}. */
    private static long lowBits(int bits) {
        return (1L << bits) - 1;
    }
}
