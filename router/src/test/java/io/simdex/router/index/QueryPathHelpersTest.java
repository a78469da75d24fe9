package io.simdex.router.index;

import io.simdex.router.api.Validation;
import io.simdex.router.shard.Fanout;
import io.simdex.router.shard.Found;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** The unary Query path's allocation-light helpers against their plain reference versions. */
class QueryPathHelpersTest {
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]{1,64}");

    @Test
    void distinctPairsKeepsFirstOccurrencesInOrderOnBothPaths() {
        Random r = new Random(7);
        // Sizes on both sides of the pairwise/hashing switch (32), few distinct values so pairs repeat.
        for (int n = 0; n <= 100; n++) {
            for (int round = 0; round < 20; round++) {
                long[] fps = new long[n];
                long[] gens = new long[n];
                for (int i = 0; i < n; i++) {
                    fps[i] = r.nextInt(6) - 3;
                    gens[i] = r.nextInt(3);
                }
                LinkedHashSet<List<Long>> expected = new LinkedHashSet<>();
                for (int i = 0; i < n; i++) {
                    expected.add(List.of(fps[i], gens[i]));
                }
                Found got = FanoutQuery.distinctPairs(fps, gens);
                List<List<Long>> actual = new ArrayList<>();
                for (int i = 0; i < got.fingerprints().length; i++) {
                    actual.add(List.of(got.fingerprints()[i], got.generations()[i]));
                }
                assertEquals(new ArrayList<>(expected), actual, "n=" + n);
            }
        }
    }

    @Test
    void fanoutGroupsEveryItemOnceInOrder() {
        Random r = new Random(11);
        for (int n = 0; n <= 40; n++) {
            int shards = 1 + r.nextInt(5);
            int[] owner = r.ints(n, 0, shards).toArray();
            int[][] groups = Fanout.group(n, shards, i -> owner[i]);
            assertEquals(shards, groups.length);
            for (int s = 0; s < shards; s++) {
                int shard = s;
                int[] expected = java.util.stream.IntStream.range(0, n).filter(i -> owner[i] == shard).toArray();
                assertArrayEquals(expected, groups[s], "n=" + n + " shard " + s);
            }
        }
    }

    @Test
    void isNameAgreesWithTheDocumentedPattern() {
        Random r = new Random(3);
        String alphabet = "aZ09_-. /é\u4e2d\u0000";
        List<String> cases = new ArrayList<>(Arrays.asList("", "default", "a", "A-b_9", "a".repeat(64), "a".repeat(65), "a b", "naïve", "x\n"));
        for (int i = 0; i < 5000; i++) {
            StringBuilder b = new StringBuilder();
            int len = r.nextInt(70);
            for (int j = 0; j < len; j++) {
                b.append(r.nextInt(10) < 8 ? (char) ('a' + r.nextInt(26)) : alphabet.charAt(r.nextInt(alphabet.length())));
            }
            cases.add(b.toString());
        }
        for (String s : cases) {
            assertEquals(NAME.matcher(s).matches(), Validation.isName(s), () -> "'" + s + "'");
        }
    }
}
