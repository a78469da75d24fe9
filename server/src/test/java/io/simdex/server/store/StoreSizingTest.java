package io.simdex.server.store;

import io.simdex.core.Partitions;
import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class StoreSizingTest {

    @Test
    void oneShard_isSizedForExactlyTheTotal() {
        assertEquals(1_000_000, StoreSizing.forShare(1_000_000, 1, 16).expectedDocuments());
    }

    @Test
    void aShare_isItsMeanPlusFourDeviations_notTenPercent() {
        // 4 shards of 4096 partitions: a quarter each; sd = sqrt(250,000 * 3/4) = 433.
        assertEquals(250_000 + 1_733, StoreSizing.forShare(1_000_000, 4, 16).expectedDocuments());
        // 3 shards: the largest holds 1366 of 4096 partitions.
        long mean = (long) Math.ceil(900_000 * 1366.0 / 4096);
        long sized = StoreSizing.forShare(900_000, 3, 16).expectedDocuments();
        assertTrue(sized > mean && sized < mean + 2_000, sized + " for a mean share of " + mean);
    }

    /** Ids placed as the router places them (partition of the id's hash, partitions dealt to shards): no shard outgrows its sizing. */
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
                assertTrue(counts[s] <= sized, "shard " + s + " of " + shards + ": " + counts[s] + " ids, sized for " + sized);
                assertTrue(counts[s] > sized * 0.97, "shard " + s + " of " + shards + ": " + counts[s] + " ids, sized for " + sized);
            }
        }
    }
}
