package io.simdex.core.text;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ShingleJaccardTest {
    @Test
    void similarity_handComputedSets() {
        // "abcd" -> {abc, bcd}; "abce" -> {abc, bce}: 1 common of 3.
        assertEquals(1.0 / 3, ShingleJaccard.similarity("abcd", "abce", 3), 1e-12);
        assertEquals(1.0, ShingleJaccard.similarity("same text", "same text", 3));
        assertEquals(0.0, ShingleJaccard.similarity("aaaa", "bbbb", 2));
    }

    @Test
    void similarity_edges() {
        assertEquals(1.0, ShingleJaccard.similarity("", "", 3), "two empty texts are identical");
        assertEquals(0.0, ShingleJaccard.similarity("", "abc", 3));
        assertEquals(1.0, ShingleJaccard.similarity("ab", "ab", 3), "shorter than n: the text is one shingle");
        assertThrows(IllegalArgumentException.class, () -> ShingleJaccard.similarity("a", "b", 0));
    }

    @Test
    void similarity_shortNearDuplicateAboveUnrelated() {
        double near = ShingleJaccard.similarity("breaking: earthquake hits tokyo", "breaking: earthquake hits tokyo!!", 3);
        double far = ShingleJaccard.similarity("breaking: earthquake hits tokyo", "stocks rally as rates fall", 3);
        assertTrue(near > 0.9 && far < 0.1, near + " vs " + far);
    }
}
