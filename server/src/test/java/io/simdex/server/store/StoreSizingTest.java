package io.simdex.server.store;

import io.simdex.core.Partitions;
import io.simdex.fingerprint.BlockTables;
import net.openhft.chronicle.map.ChronicleMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class StoreSizingTest {
    @TempDir
    Path dir;

    @Test
    void oneShard_isSizedForTheTotal_belowWhereItsNextGenerationIsMade() {
        assertEquals((long) Math.ceil(1_000_000 / GrowingMap.PREPARE_AT), StoreSizing.forShare(1_000_000, 1, 16).expectedDocuments());
    }

    @Test
    void aShare_isItsMeanPlusFourDeviations() {
        // 4 shards of 4096 partitions: a quarter each; sd = sqrt(250,000 * 3/4) = 433.
        // Over PREPARE_AT, so a shard that holds it makes no next generation ahead.
        assertEquals((long) Math.ceil((250_000 + 4 * Math.sqrt(250_000 * 0.75)) / GrowingMap.PREPARE_AT),
                StoreSizing.forShare(1_000_000, 4, 16).expectedDocuments());
        // 3 shards: the largest holds 1366 of 4096 partitions.
        long mean = (long) Math.ceil(900_000 * 1366.0 / 4096);
        long sized = StoreSizing.forShare(900_000, 3, 16).expectedDocuments();
        assertTrue(sized * GrowingMap.PREPARE_AT > mean && sized * GrowingMap.PREPARE_AT < mean + 2_000, sized + " for a mean share of " + mean);
    }

    @Test
    void atLeast_raisesToWhatAStoreHolds_neverLowers() {
        StoreSizing configured = new StoreSizing(1_000_000, 260_000, 65_536, 16);
        // 4 tables' worth of a quarter of the buckets: 60 residues a bucket is 60 x 65,536 fingerprints.
        StoreSizing grown = configured.atLeast(60L * 65_536, 2_500_000);
        assertEquals(60L * 65_536, grown.expectedFingerprints());
        assertEquals((long) Math.ceil(2_500_000 / GrowingMap.PREPARE_AT), grown.expectedDocuments());
        assertEquals(65_536, grown.ownedBuckets());
        assertEquals(16, grown.averageIdBytes());
        assertTrue(grown.geometry().pageCapacity() > configured.geometry().pageCapacity(), "laid out for more a bucket");

        assertEquals(configured, configured.atLeast(1_000, 1_000), "a smaller store keeps the configured sizing");
        StoreSizing tablesOnly = configured.atLeast(60L * 65_536, 1_000);
        assertEquals(260_000, tablesOnly.expectedDocuments(), "each size raised on its own");
        assertEquals(60L * 65_536, tablesOnly.expectedFingerprints());
    }

    /** Ids placed by the partition of their hash, partitions dealt to shards: no shard reaches the fill that makes its next generation. */
    @Test
    void idsPlacedByHash_fitEveryShardsSizing() {
        int total = 200_000;
        Random rnd = new Random(23);
        for (int shards : new int[] {2, 3, 4, 5, 7}) {
            long[] counts = new long[shards];
            for (int i = 0; i < total; i++) {
                counts[Partitions.ofId(Long.toHexString(rnd.nextLong())) % shards]++;
            }
            long sized = StoreSizing.forShare(total, shards, 16).expectedDocuments();
            for (int s = 0; s < shards; s++) {
                long prepareAt = (long) (sized * GrowingMap.PREPARE_AT);
                assertTrue(counts[s] < prepareAt, "shard " + s + " of " + shards + ": " + counts[s] + " ids, next generation made at " + prepareAt);
                assertTrue(counts[s] > prepareAt * 0.97, "shard " + s + " of " + shards + ": " + counts[s] + " ids, sized for " + sized);
            }
        }
    }

    /**
     * A cluster node keeping R copies over N nodes: partitions dealt R to each, ids and bucket
     * keys placed by their partitions. Every node's ids stay below where its map makes its next
     * generation, its bucket keys within the base pages it is sized for, and its pages are laid
     * out for what a bucket of the whole collection holds (as one shard's of the embedded
     * server), not R times that.
     */
    @Test
    void replicas_idsAndBucketsOfEveryNodeFitItsSizing_pagesForTheDocumentsNotTheirCopies() {
        int total = 200_000;
        Random rnd = new Random(31);
        String[] ids = new String[total];
        for (int i = 0; i < total; i++) {
            ids[i] = Long.toHexString(rnd.nextLong());
        }
        for (int[] rn : new int[][] {{2, 3}, {2, 4}, {3, 4}, {3, 5}, {2, 7}}) {
            int r = rn[0];
            int nodes = rn[1];
            long[] idCounts = new long[nodes];
            for (String id : ids) {
                int p = Partitions.ofId(id);
                for (int k = 0; k < r; k++) {
                    idCounts[(p + k) % nodes]++;
                }
            }
            long[] bucketCounts = new long[nodes];
            for (int key = 0; key < BlockTables.TABLES * BlockTables.KEYS_PER_TABLE; key++) {
                int p = Partitions.ofBucketKey(key);
                for (int k = 0; k < r; k++) {
                    bucketCounts[(p + k) % nodes]++;
                }
            }
            StoreSizing sizing = StoreSizing.forReplicas(total, r, nodes, 16);
            long prepareAt = (long) (sizing.expectedDocuments() * GrowingMap.PREPARE_AT);
            for (int n = 0; n < nodes; n++) {
                String node = "node " + n + " of " + nodes + " at R=" + r;
                assertTrue(idCounts[n] < prepareAt, node + ": " + idCounts[n] + " ids, next generation made at " + prepareAt);
                assertTrue(idCounts[n] > prepareAt * 0.97, node + ": " + idCounts[n] + " ids, sized for " + sizing.expectedDocuments());
                assertTrue(bucketCounts[n] <= sizing.ownedBuckets(), node + ": " + bucketCounts[n] + " bucket keys, sized for " + sizing.ownedBuckets());
                // Within 3% above (four deviations each way, and a share rounded up): every key
                // sized for and not owned is a base page of file unused.
                assertTrue(bucketCounts[n] > sizing.ownedBuckets() / 1.03, node + ": " + bucketCounts[n] + " bucket keys, sized for " + sizing.ownedBuckets());
            }
            assertEquals(StoreSizing.forShare(total, 4, 16).geometry().pageCapacity(), sizing.geometry().pageCapacity(), "R=" + r + " N=" + nodes);
        }
    }

    /**
     * A map of a collection's shard, sized as a store sizes it, filled with the ids that shard
     * gets of the expected documents: it makes no next generation's file (twice its size) ahead.
     */
    @Test
    void aShardHoldingItsShareOfTheExpectedDocuments_makesNoNextGenerationAhead() {
        int total = 40_000;
        for (int shards : new int[] {1, 4}) {
            Random rnd = new Random(29);
            List<String> ids = new ArrayList<>();
            for (int i = 0; i < total; i++) {
                String id = Long.toHexString(rnd.nextLong());
                if (Partitions.ofId(id) % shards == 0) {
                    ids.add(id);
                }
            }
            StoreSizing sizing = StoreSizing.forShare(total, shards, 16);
            GrowingMap.Sizes sizes = sizing.geometry().sizes(Math.max(1024, sizing.expectedDocuments()));
            try (GrowingMap<String, Long> m = new GrowingMap<>(dir, "ids-of-" + shards, sizes,
                    n -> ChronicleMap.of(String.class, Long.class).entries(n).averageKey("x".repeat(16)), true)) {
                for (String id : ids) {
                    m.put(id, 1L);
                }
                assertEquals(ids.size(), m.size());
                assertFalse(m.nextMadeAhead(), ids.size() + " ids of " + total + " on " + shards + " shards, generations of " + sizes);
            }
        }
    }
}
