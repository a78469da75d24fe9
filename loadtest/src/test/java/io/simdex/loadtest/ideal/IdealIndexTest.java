package io.simdex.loadtest.ideal;

import io.simdex.fingerprint.BitFlips;
import io.simdex.fingerprint.Hamming;
import io.simdex.fingerprint.LinearScan;
import io.simdex.server.store.MatchBuffer;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** IdealIndex against the brute-force LinearScan on data mixing distributions. */
class IdealIndexTest {
    private static final long SEED = 20240607L;

    @Test
    void within_plantedNeighboursAtZeroToFive_matchesLinearScanAtEveryDistance() {
        SplittableRandom random = new SplittableRandom(SEED);
        long[] stored = mixedData(random);
        IdealIndex ideal = IdealIndex.of(stored);
        LinearScan scan = new LinearScan(stored);
        List<Long> probes = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            long base = stored[random.nextInt(stored.length)];
            for (int d = 0; d <= 5; d++) {
                probes.add(BitFlips.flip(base, d, random));
            }
        }
        for (int i = 0; i < 50; i++) {
            probes.add(random.nextLong());
        }
        for (long probe : probes) {
            for (int k = 0; k <= 3; k++) {
                assertArrayEquals(scan.within(probe, k), ideal.within(probe, k),
                        () -> "replay: seed " + SEED + ", probe 0x" + Long.toHexString(probe));
            }
        }
    }

    @Test
    void within_neighbourAtThree_found_neighbourAtFour_notFound() {
        SplittableRandom random = new SplittableRandom(SEED + 1);
        long centre = random.nextLong();
        long three = BitFlips.flip(centre, 3, random);
        // Four bits, one in each 16-bit block: no block is equal, so no table's bucket holds it.
        long fourSpread = centre ^ (1L | 1L << 16 | 1L << 32 | 1L << 48);
        IdealIndex ideal = IdealIndex.of(new long[]{three, fourSpread});

        long[] found = ideal.within(centre, 3);

        assertArrayEquals(new long[]{three}, found);
        assertEquals(4, Hamming.distance(centre, fourSpread));
    }

    @Test
    void probe_matchEqualInAllFourBlocks_reportedOnce() {
        long fp = 0x1234_5678_9abc_def0L;
        IdealIndex ideal = IdealIndex.of(new long[]{fp});
        MatchBuffer out = new MatchBuffer();

        ideal.probe(fp, 3, out);

        assertEquals(1, out.size());
        assertEquals(fp, out.get(0));
    }

    @Test
    void probe_emptyIndex_findsNothing() {
        MatchBuffer out = new MatchBuffer();
        IdealIndex.of(new long[0]).probe(42L, 3, out);
        assertEquals(0, out.size());
    }

    @Test
    void bytes_isFourLongsPerFingerprintPlusOffsets() {
        IdealIndex ideal = IdealIndex.of(new long[1000]);
        assertEquals(4L * 8 * 1000 + 4L * 65_537 * 4, ideal.bytes());
    }

    /**
     * Uniform fingerprints, planted clusters at 1..5 bits, duplicates, and a skewed group sharing
     * block 0 (one oversized bucket) and one sharing block 3.
     */
    private static long[] mixedData(SplittableRandom random) {
        List<Long> fps = new ArrayList<>();
        for (int i = 0; i < 20_000; i++) {
            fps.add(random.nextLong());
        }
        for (int c = 0; c < 500; c++) {
            long centre = fps.get(random.nextInt(fps.size()));
            for (int d = 1; d <= 5; d++) {
                fps.add(BitFlips.flip(centre, d, random));
            }
            fps.add(centre);
        }
        for (int i = 0; i < 2_000; i++) {
            fps.add((random.nextLong() & ~0xFFFFL) | 0xBEEFL);
            fps.add((random.nextLong() & 0x0000_FFFF_FFFF_FFFFL) | 0xCAFEL << 48);
        }
        long[] out = fps.stream().mapToLong(Long::longValue).toArray();
        assertTrue(Arrays.stream(out).distinct().count() < out.length, "data must contain duplicates");
        return out;
    }
}
