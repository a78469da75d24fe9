package io.simdex.server.store;

import io.simdex.fingerprint.BlockTables;
import java.nio.file.*;
import java.util.*;

/**
 * Not a test (a main, run by hand): one shard's tables at N documents (a quarter of the buckets), as pages and packed; write time, bytes, probe rate. Run with the
 * server test classpath and the root pom's chronicle.jvm.args: {@code java ... PackedTableBench 1000000}.
 */
public class PackedTableBench {
    public static void main(String[] a) throws Exception {
        long docs = Long.parseLong(a[0]);          // documents of the whole store (4 shards)
        Path dir = Files.createTempDirectory("pb");
        SplittableRandom rnd = new SplittableRandom(1);
        // This shard: bucket keys whose partition % 4 == 0, as the embedded placement deals them.
        int shardDocs = 0;
        long[][] byBucket = new long[PackedTable.BUCKET_KEYS][];
        int[] counts = new int[PackedTable.BUCKET_KEYS];
        long[] fps = new long[(int) docs];
        for (int i = 0; i < docs; i++) fps[i] = rnd.nextLong();
        boolean[] owned = new boolean[PackedTable.BUCKET_KEYS];
        int ownedCount = 0;
        for (int k = 0; k < owned.length; k++) { owned[k] = io.simdex.core.Partitions.ofBucketKey(k) % 4 == 0; if (owned[k]) ownedCount++; }
        long residues = 0;
        for (long fp : fps) for (int t = 0; t < 4; t++) {
            int k = BlockTables.bucketKey(t, BlockTables.block(fp, t));
            if (!owned[k]) continue;
            if (byBucket[k] == null) byBucket[k] = new long[8];
            if (counts[k] == byBucket[k].length) byBucket[k] = Arrays.copyOf(byBucket[k], counts[k] * 2);
            byBucket[k][counts[k]++] = fp; residues++;
        }
        System.out.printf("docs %d, this shard: %d buckets owned, %d residues%n", docs, ownedCount, residues);
        // Pages, as a store sized for docs lays them out.
        TableGeometry g = TableGeometry.forExpected(docs, ownedCount);
        long t0 = System.nanoTime();
        Files.createDirectories(dir.resolve("pages")); BucketTable table = new BucketTable(dir.resolve("pages"), g, true);
        for (int k = 0; k < byBucket.length; k++) if (counts[k] > 0) table.addAll(k >>> 16, byBucket[k], 0, counts[k]);
        double pagesLoad = (System.nanoTime() - t0) / 1e9;
        long pageBytes = Files.walk(dir.resolve("pages")).filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
        t0 = System.nanoTime();
        Path file = dir.resolve("t.packed");
        PackedTable.write(file, out -> {
            long[] res = new long[64];
            for (int k = 0; k < byBucket.length; k++) if (counts[k] > 0) {
                if (res.length < counts[k]) res = new long[counts[k] * 2];
                for (int i = 0; i < counts[k]; i++) res[i] = BlockTables.residue(byBucket[k][i], k >>> 16);
                out.accept(k, res, counts[k]);
            }
        });
        double packWrite = (System.nanoTime() - t0) / 1e9;
        PackedTable packed = PackedTable.open(file);
        System.out.printf("pages: %.1f s to load, %,d B (%.1f B/residue); packed: %.1f s to write, %,d B (%.1f B/residue)%n",
                pagesLoad, pageBytes, (double) pageBytes / residues, packWrite, packed.bytes(), (double) packed.bytes() / residues);
        // Probes: owned buckets of stored fps, at distance 3, per (table, fp) probe.
        int n = 2_000_000;
        int[] pt = new int[n]; long[] pf = new long[n];
        for (int i = 0; i < n; ) { long fp = fps[rnd.nextInt(fps.length)] ^ (1L << rnd.nextInt(64)); int t = rnd.nextInt(4);
            if (owned[BlockTables.bucketKey(t, BlockTables.block(fp, t))]) { pt[i] = t; pf[i] = fp; i++; } }
        MatchBuffer out = new MatchBuffer();
        for (int round = 0; round < 5; round++) {
            long s = System.nanoTime(); long found = 0;
            for (int i = 0; i < n; i++) { out.clear(); table.probe(pt[i], pf[i], 3, out); found += out.size(); }
            double pagesRate = n / ((System.nanoTime() - s) / 1e9);
            s = System.nanoTime(); long found2 = 0;
            for (int i = 0; i < n; i++) { out.clear(); packed.probe(pt[i], BlockTables.block(pf[i], pt[i]), BlockTables.residue(pf[i], pt[i]), 3, out); found2 += out.size(); }
            double packedRate = n / ((System.nanoTime() - s) / 1e9);
            System.out.printf("round %d: pages %,.0f probes/s (%d found), packed %,.0f probes/s (%d found), packed/pages %.2f%n", round, pagesRate, found, packedRate, found2, packedRate / pagesRate);
        }
        table.close(); packed.close();
    }
}
