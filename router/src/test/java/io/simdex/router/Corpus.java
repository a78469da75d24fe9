package io.simdex.router;

import io.simdex.fingerprint.BitFlips;
import io.simdex.fingerprint.Hamming;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.stream.IntStream;

/**
 * Test data: random fingerprints, planted neighbours at distances 1..5 around some of them,
 * some fingerprints shared by two ids, and probes at distances 0..5 from stored ones.
 * {@link #within} is the brute-force answer every index path is checked against.
 */
public final class Corpus {
    public final List<String> ids = new ArrayList<>();
    public final List<Long> fps = new ArrayList<>();
    public final List<Long> probes = new ArrayList<>();
    /** How far {@link #nearby} keeps each probe's neighbours. */
    private static final int SCAN_RADIUS = 7;
    /** Per probe, the indexes of the documents within SCAN_RADIUS; cleared when documents are added. */
    private final Map<Long, int[]> scanned = new HashMap<>();
    /** The fingerprints as a primitive array, for the scan. */
    private long[] all;

    public Corpus(int random, int centres, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        for (int i = 0; i < random; i++) {
            add("r" + i, rnd.nextLong());
        }
        for (int c = 0; c < centres; c++) {
            long centre = fps.get(rnd.nextInt(random));
            for (int d = 1; d <= 5; d++) {
                add("c" + c + "-d" + d, BitFlips.flip(centre, d, rnd));
            }
            add("c" + c + "-same", centre); // a second id on the same fingerprint
        }
        for (int p = 0; p < centres * 2; p++) {
            long base = fps.get(rnd.nextInt(fps.size()));
            for (int d = 0; d <= 5; d++) {
                probes.add(BitFlips.flip(base, d, rnd));
            }
        }
    }

    private void add(String id, long fp) {
        ids.add(id);
        fps.add(fp);
    }

    /** "id/fingerprint/distance" of every stored document within k of probe, sorted. */
    public TreeSet<String> within(long probe, int k, java.util.Set<String> deleted) {
        if (k > SCAN_RADIUS) {
            throw new IllegalArgumentException("the scan keeps neighbours up to " + SCAN_RADIUS + ", asked " + k);
        }
        TreeSet<String> out = new TreeSet<>();
        for (int i : nearby(probe)) {
            int d = Hamming.distance(fps.get(i), probe);
            if (d <= k && !deleted.contains(ids.get(i))) {
                out.add(ids.get(i) + "/" + Long.toHexString(fps.get(i)) + "/" + d);
            }
        }
        return out;
    }

    /**
     * Indexes of the documents within {@link #SCAN_RADIUS} of probe, by a linear scan of every
     * document, kept per probe: the tests ask each probe at several distances and several times.
     */
    private synchronized int[] nearby(long probe) {
        if (all == null || all.length != fps.size()) { // first call, or documents were added
            all = fps.stream().mapToLong(Long::longValue).toArray();
            scanned.clear();
        }
        return scanned.computeIfAbsent(probe,
                p -> IntStream.range(0, all.length).filter(i -> Hamming.distance(all[i], p) <= SCAN_RADIUS).toArray());
    }
}
