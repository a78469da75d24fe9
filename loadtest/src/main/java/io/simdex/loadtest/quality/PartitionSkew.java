package io.simdex.loadtest.quality;

import io.simdex.core.Partitions;
import io.simdex.core.text.TextFingerprinter;
import io.simdex.fingerprint.BlockTables;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;

/**
 * How evenly real documents spread over the cluster's 4096 partitions: the largest partition
 * against the mean, for bucket entries (4 per document), id records and fingerprint records,
 * on this machine's man pages and Chinese texts (fingerprinted with the default settings) and
 * on as many random fingerprints. The random row is the sampling noise at that size; text
 * above it is skew of the data itself (SimHash blocks of real text are not uniform).
 */
@Command(name = "skew", mixinStandardHelpOptions = true,
        description = "Largest partition / mean partition, for real texts and for random fingerprints.")
public final class PartitionSkew implements Callable<Integer> {
    @Option(names = "--man", defaultValue = "/usr/share/man", description = "Man page root (default: ${DEFAULT-VALUE}).")
    Path man;

    @Option(names = "--fortunes", defaultValue = "/usr/share/games/fortunes", description = "Fortune files (default: ${DEFAULT-VALUE}).")
    Path fortunes;

    @Option(names = "--docs", defaultValue = "20000", description = "Documents per text kind, at most (default: ${DEFAULT-VALUE}).")
    int docs;

    public static void main(String[] args) {
        System.exit(new CommandLine(new PartitionSkew()).execute(args));
    }

    @Override
    public Integer call() {
        Sources sources = new Sources(man, fortunes, null, 7);
        List<Doc> all = new ArrayList<>();
        all.addAll(sources.englishLong(docs / 4));
        all.addAll(sources.englishShort(docs / 4));
        if (sources.hasChinese()) {
            all.addAll(sources.chineseLong(docs / 4));
            all.addAll(sources.chineseShort(docs / 4));
        }
        TextFingerprinter f = TextFingerprinter.defaults();
        long[] text = all.stream().mapToLong(d -> f.fingerprint(d.text())).toArray();
        String[] ids = all.stream().map(Doc::id).toArray(String[]::new);
        long[] random = new SplittableRandom(11).longs(text.length).toArray();
        System.out.printf("%,d documents (man pages, sentences%s); largest partition / mean:%n", text.length,
                sources.hasChinese() ? ", zh man pages, poems" : "");
        System.out.printf("%-8s %14s %14s %14s%n", "data", "bucket entries", "id records", "fp records");
        row("text", text, ids);
        String[] randomIds = new String[random.length];
        for (int i = 0; i < random.length; i++) {
            randomIds[i] = "doc-" + i;
        }
        row("random", random, randomIds);
        heaviest(text);
        return 0;
    }

    /** Where text skew comes from: the fullest bucket, and the fingerprint most documents share. */
    private static void heaviest(long[] fps) {
        java.util.Map<Integer, Integer> buckets = new java.util.HashMap<>();
        java.util.Map<Long, Integer> same = new java.util.HashMap<>();
        for (long fp : fps) {
            same.merge(fp, 1, Integer::sum);
            for (int t = 0; t < BlockTables.TABLES; t++) {
                buckets.merge(BlockTables.bucketKey(t, BlockTables.block(fp, t)), 1, Integer::sum);
            }
        }
        var bucket = buckets.entrySet().stream().max(java.util.Map.Entry.comparingByValue()).orElseThrow();
        var fp = same.entrySet().stream().max(java.util.Map.Entry.comparingByValue()).orElseThrow();
        System.out.printf("text: fullest bucket table %d block %04x holds %,d entries (mean %.2f); most shared fingerprint %016x: %,d documents%n",
                bucket.getKey() >>> BlockTables.BLOCK_BITS, bucket.getKey() & 0xFFFF, bucket.getValue(),
                fps.length / (double) BlockTables.KEYS_PER_TABLE, fp.getKey(), fp.getValue());
    }

    private static void row(String name, long[] fps, String[] ids) {
        int[] buckets = new int[Partitions.COUNT];
        int[] idRecords = new int[Partitions.COUNT];
        int[] fpRecords = new int[Partitions.COUNT];
        for (int i = 0; i < fps.length; i++) {
            for (int t = 0; t < BlockTables.TABLES; t++) {
                buckets[Partitions.ofBucket(t, BlockTables.block(fps[i], t))]++;
            }
            idRecords[Partitions.ofId(ids[i])]++;
            fpRecords[Partitions.ofFingerprint(fps[i])]++;
        }
        System.out.printf("%-8s %14.2f %14.2f %14.2f%n", name, ratio(buckets), ratio(idRecords), ratio(fpRecords));
    }

    private static double ratio(int[] counts) {
        long sum = 0;
        int max = 0;
        for (int c : counts) {
            sum += c;
            max = Math.max(max, c);
        }
        return max / (sum / (double) counts.length);
    }
}
