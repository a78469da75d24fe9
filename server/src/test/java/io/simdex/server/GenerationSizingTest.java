package io.simdex.server;

import io.simdex.fingerprint.BlockTables;
import io.simdex.server.store.BucketTable;
import io.simdex.server.store.StoreSizing;
import io.simdex.server.store.TableGeometry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A new time generation is laid out for what the generations before it hold, not only for the configured size. */
class GenerationSizingTest {
    /** The layout of pages is what this tests: stores with pages, not packed tables. */
    @BeforeAll
    static void pages() {
        System.setProperty("simdex.packed.tables", "false");
    }

    @AfterAll
    static void packedAgain() {
        System.clearProperty("simdex.packed.tables");
    }

    /** Every bucket owned; laid out for 100,000 fingerprints: 8 residues a page. */
    private static final StoreSizing SIZING = new StoreSizing(100_000, 16_000, BlockTables.TABLES * BlockTables.KEYS_PER_TABLE, 12);
    private static final int STORED = 600_000;

    @TempDir
    Path dir;

    @Test
    void nextGeneration_afterOneThatOutgrewItsSizing_isLaidOutForWhatThatHolds() {
        long[] fps = new SplittableRandom(29).longs(STORED).toArray();
        try (ShardNode node = new ShardNode(dir, c -> SIZING)) {
            for (int t = 0; t < BlockTables.TABLES; t++) {
                node.bucketAdd("c", 0, t, fps, false);
            }
            BucketTable grown = node.collection("c").existing(0).buckets();
            assertEquals(TableGeometry.forExpected(100_000, SIZING.ownedBuckets()), grown.geometry());

            node.prepareGeneration("c", 1, false);
            BucketTable next = node.collection("c").existing(1).buckets();
            assertEquals(TableGeometry.forExpected(STORED, SIZING.ownedBuckets()), next.geometry());
            assertTrue(next.geometry().pageCapacity() > grown.geometry().pageCapacity(),
                    next.geometry() + " after " + grown.geometry());

            for (int t = 0; t < BlockTables.TABLES; t++) {
                node.bucketAdd("c", 1, t, fps, false);
            }
            // The same fingerprints in about one page a bucket, where the first generation chains them.
            long buckets = BlockTables.TABLES * (long) BlockTables.KEYS_PER_TABLE;
            assertTrue(next.pages() < buckets * 1.1, next.pages() + " pages");
            assertTrue(grown.pages() > buckets * 1.5, grown.pages() + " pages");
            SplittableRandom rnd = new SplittableRandom(31);
            for (int i = 0; i < 2_000; i++) {
                long probe = fps[rnd.nextInt(STORED)] ^ 1L << rnd.nextInt(64);
                for (int t = 0; t < BlockTables.TABLES; t++) {
                    ShardNode.Found[] a = node.probe("c", new long[] {0}, t, new long[] {probe}, 3);
                    ShardNode.Found[] b = node.probe("c", new long[] {1}, t, new long[] {probe}, 3);
                    assertArrayEquals(sorted(a[0].fingerprints()), sorted(b[0].fingerprints()));
                }
            }
        }
    }

    @Test
    void generationsBeforeNone_orSmallerThanTheSizing_keepTheConfiguredLayout() {
        try (ShardNode node = new ShardNode(dir, c -> SIZING)) {
            node.bucketAdd("c", 5, 0, new long[] {1, 2, 3}, false);
            node.prepareGeneration("c", 6, false);
            node.prepareGeneration("c", 4, false);
            TableGeometry configured = TableGeometry.forExpected(100_000, SIZING.ownedBuckets());
            for (long g : new long[] {4, 5, 6}) {
                assertEquals(configured, node.collection("c").existing(g).buckets().geometry(), "generation " + g);
            }
        }
    }

    private static long[] sorted(long[] a) {
        long[] out = a.clone();
        Arrays.sort(out);
        return out;
    }
}
