package io.simdex.loadtest.store;

import io.simdex.fingerprint.BlockTables;
import io.simdex.loadtest.ideal.IdealIndex;
import io.simdex.server.store.BucketTable;
import io.simdex.server.store.MatchBuffer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/** What the store costs in bytes, and a check that it answers what the ideal index answers. */
final class StoreSizes {
    /** Probes compared between store and ideal before timing. */
    private static final int CHECKED_PROBES = 5_000;

    private StoreSizes() {
    }

    /**
     * Bytes per fingerprint: the tables' own count ({@link BucketTable#offHeapBytes}), their
     * files' length and the disk blocks they occupy (page files are sparse, so these differ),
     * and the ideal index's heap arrays for comparison.
     */
    static Map<String, Object> of(BucketTable buckets, Path dir, long count, IdealIndex ideal) {
        long offHeap = buckets.offHeapBytes();
        // Every byte the tables take: packed, the run and the delta's logs in packed/; in pages,
        // the base map and the overflow maps of buckets that outgrow it.
        List<Path> bucketFiles = new ArrayList<>(files(dir, "buckets-"));
        bucketFiles.addAll(files(dir, "overflow-"));
        if (Files.isDirectory(dir.resolve("packed"))) {
            bucketFiles.addAll(files(dir.resolve("packed"), ""));
        }
        long bucketFileBytes = fileBytes(bucketFiles);
        Long allocated = allocatedBytes(bucketFiles);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("bucketEntries", buckets.entries());
        m.put("geometry", buckets.geometry().toString());
        m.put("offHeapBytes", offHeap);
        m.put("offHeapBytesPerFingerprint", StoreBenchCommand.round((double) offHeap / count));
        m.put("bucketFileBytes", bucketFileBytes);
        m.put("bucketFileBytesPerFingerprint", StoreBenchCommand.round((double) bucketFileBytes / count));
        m.put("bucketDiskAllocatedBytes", allocated);
        m.put("bucketDiskAllocatedBytesPerFingerprint", allocated == null ? null : StoreBenchCommand.round((double) allocated / count));
        m.put("idealHeapBytesPerFingerprint", StoreBenchCommand.round((double) ideal.bytes() / count));
        return m;
    }

    /** Probes among the first few thousand whose distinct matches differ between store and ideal: 0 expected. */
    static int mismatches(BucketTable buckets, IdealIndex ideal, long[] probes, int maxDistance) {
        MatchBuffer buffer = new MatchBuffer();
        int bad = 0;
        for (int i = 0; i < Math.min(CHECKED_PROBES, probes.length); i++) {
            buffer.clear();
            for (int t = 0; t < BlockTables.TABLES; t++) {
                buckets.probe(t, probes[i], maxDistance, buffer);
            }
            long[] fromStore = StoreBenchCommand.distinctSorted(buffer.toArray());
            long[] fromIdeal = StoreBenchCommand.distinctSorted(ideal.within(probes[i], maxDistance));
            bad += Arrays.equals(fromStore, fromIdeal) ? 0 : 1;
        }
        return bad;
    }

    private static List<Path> files(Path dir, String prefix) {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.getFileName().toString().startsWith(prefix)).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static long fileBytes(List<Path> files) {
        long sum = 0;
        for (Path p : files) {
            try {
                sum += Files.size(p);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return sum;
    }

    /** Blocks the files occupy, from `du` (Java has no portable call for it); null where du is missing. */
    private static Long allocatedBytes(List<Path> files) {
        if (files.isEmpty()) {
            return 0L; // du with no file names weighs the working directory
        }
        List<String> command = new ArrayList<>(List.of("du", "-c", "-B1"));
        files.forEach(f -> command.add(f.toString()));
        try {
            Process du = new ProcessBuilder(command).redirectErrorStream(true).start();
            String[] lines = new String(du.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip().split("\n");
            return du.waitFor() == 0 ? Long.parseLong(lines[lines.length - 1].split("\\s+")[0]) : null;
        } catch (IOException | NumberFormatException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }
}
