package io.simdex.router.index;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A write batch's distinct keys against boxed reference versions, with many repeats and none. */
class BatchKeysTest {
    @Test
    void lastOccurrencesMatchALinkedMapInOrderOfThoseOccurrences() {
        Random r = new Random(11);
        for (int n = 0; n <= 300; n += 7) {
            for (int distinct : new int[] {1, 3, n + 1, 10 * n + 1}) {
                String[] ids = new String[n];
                for (int i = 0; i < n; i++) {
                    // new String: equal ids are distinct objects, as when parsed from a request
                    ids[i] = new String("doc-" + r.nextInt(distinct));
                }
                Map<String, Integer> last = new LinkedHashMap<>();
                for (int i = 0; i < n; i++) {
                    last.remove(ids[i]);
                    last.put(ids[i], i);
                }
                int[] expected = last.values().stream().mapToInt(Integer::intValue).toArray();
                assertArrayEquals(expected, BatchKeys.lastOccurrences(ids), "n=" + n + " distinct=" + distinct);
            }
        }
    }

    @Test
    void idsWhoseHashesCollideAreKeptApart() {
        // "Aa" and "BB" have the same String.hashCode, and so do all their concatenations
        String[] ids = {"AaAa", "BBBB", "AaBB", "BBAa", "AaAa", "BBBB"};
        assertArrayEquals(new int[] {2, 3, 4, 5}, BatchKeys.lastOccurrences(ids));
    }

    @Test
    void fingerprintSetAndDistinctMatchAHashSet() {
        Random r = new Random(5);
        for (int n = 0; n <= 2000; n += 97) {
            long[] fps = new long[n];
            for (int i = 0; i < n; i++) {
                // 0 and -1 included; values that differ only in their high bits too
                fps[i] = switch (r.nextInt(4)) {
                    case 0 -> r.nextInt(3) - 1;
                    case 1 -> (long) r.nextInt(50) << 40;
                    default -> r.nextLong();
                };
            }
            BatchKeys.Fingerprints set = new BatchKeys.Fingerprints(n);
            LinkedHashSet<Long> reference = new LinkedHashSet<>();
            for (long fp : fps) {
                assertEquals(reference.add(fp), set.add(fp), "add " + fp);
                assertTrue(set.contains(fp));
            }
            assertFalse(n > 0 && !reference.contains(12345L) && set.contains(12345L));
            List<Long> distinct = new ArrayList<>();
            for (long fp : BatchKeys.distinct(fps)) {
                distinct.add(fp);
            }
            assertEquals(new ArrayList<>(reference), distinct, "n=" + n);
        }
    }
}
