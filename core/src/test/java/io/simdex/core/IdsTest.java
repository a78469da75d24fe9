package io.simdex.core;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

class IdsTest {
    @Test
    void utf8Bytes_asEncoding_forAsciiLatinHanAndSurrogatePairs() {
        SplittableRandom random = new SplittableRandom(7);
        int[] starts = {0x20, 0xA0, 0x4E00, 0x1F600};
        for (int round = 0; round < 2_000; round++) {
            StringBuilder s = new StringBuilder();
            for (int i = random.nextInt(1, 20); i > 0; i--) {
                s.appendCodePoint(starts[random.nextInt(starts.length)] + random.nextInt(64));
            }
            String id = s.toString();
            assertEquals(id.getBytes(StandardCharsets.UTF_8).length, Ids.utf8Bytes(id), id);
        }
    }

    @Test
    void problem_atTheByteLimit() {
        assertNull(Ids.problem("id", "x".repeat(Ids.MAX_BYTES)));
        assertNull(Ids.problem("id", "新".repeat(Ids.MAX_BYTES / 3)));
        assertEquals("id is longer than 256 bytes", Ids.problem("id", "新".repeat(Ids.MAX_BYTES / 3) + "ab"));
        assertEquals("id is empty", Ids.problem("id", ""));
        assertEquals("id 'a\\u0001' contains a control character at 1", Ids.problem("id", "a\u0001"));
    }
}
