package io.simdex.fingerprint;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Comparator;
import java.util.SplittableRandom;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

class IntSortTest {
    @Test
    void sort_randomKeysWithTies_sameAsStableBoxedSort() {
        SplittableRandom random = new SplittableRandom(3);
        for (int n : new int[] {0, 1, 2, 23, 24, 25, 100, 1000, 4097}) {
            int[] keys = random.ints(n, 0, 10).toArray();
            int[] values = IntStream.range(0, n).toArray();
            Integer[] expected = Arrays.stream(values).boxed().toArray(Integer[]::new);
            Arrays.sort(expected, Comparator.comparingInt(i -> keys[i]));

            IntSort.sort(values, (a, b) -> Integer.compare(keys[a], keys[b]));

            assertArrayEquals(Arrays.stream(expected).mapToInt(Integer::intValue).toArray(), values, "n=" + n);
        }
    }

    @Test
    void sort_emptyAndSingle_unchanged() {
        int[] empty = {};
        IntSort.sort(empty, Integer::compare);
        assertArrayEquals(new int[] {}, empty);
        int[] single = {7};
        IntSort.sort(single, (a, b) -> {
            throw new AssertionError("one element needs no comparison");
        });
        assertArrayEquals(new int[] {7}, single);
    }
}
