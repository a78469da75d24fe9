package io.simdex.server.store;

import io.simdex.fingerprint.BlockTables;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What a collection costs before it holds much: its maps start small and grow with the data. */
class StoreSizeTest {
    private static final long FOUR_MB = 4L << 20;
    private static final int SHARDS = 4;

    @TempDir
    Path dir;

    /**
     * A one-document collection on the embedded default (4 shards, sized for 1M documents):
     * its files' lengths (Chronicle Map allocates them whole, fallocate) and the memory its maps
     * occupy, all shards together, stay under 4 MB. Sized for 1M from their first files, they
     * took 165 MB.
     */
    @Test
    void oneDocument_fourShardsSizedForAMillion_filesAndMappedMemoryUnderFourMegabytes() throws IOException {
        long fp = 0x0123_4567_89AB_CDEFL;
        long mapped = 0;
        for (int shard = 0; shard < SHARDS; shard++) {
            try (CollectionStore store = CollectionStore.open(dir.resolve("shard-" + shard), StoreSizing.forShare(1_000_000, SHARDS, 24))) {
                if (shard == 0) {
                    for (int t = 0; t < BlockTables.TABLES; t++) {
                        store.buckets().add(t, fp);
                    }
                    store.docs().bind("doc-1", fp);
                    store.docs().attach(fp, "doc-1");
                }
                mapped += store.buckets().offHeapBytes() + store.docs().offHeapBytes();
            }
        }
        long files = totalFileBytes(dir);
        assertTrue(files < FOUR_MB, "files of a one-document collection: " + files + " bytes");
        assertTrue(mapped < FOUR_MB, "mapped by a one-document collection: " + mapped + " bytes");
        try (CollectionStore store = CollectionStore.open(dir.resolve("shard-0"), StoreSizing.forShare(1_000_000, SHARDS, 24))) {
            assertArrayEquals(new String[] {"doc-1"}, store.docs().ids(fp));
            MatchBuffer out = new MatchBuffer();
            store.buckets().probe(0, fp, 0, out);
            assertArrayEquals(new long[] {fp}, out.toArray());
        }
    }

    private static long totalFileBytes(Path root) throws IOException {
        try (Stream<Path> files = Files.walk(root)) {
            long sum = 0;
            for (Path p : files.filter(Files::isRegularFile).toList()) {
                sum += Files.size(p);
            }
            return sum;
        }
    }
}
