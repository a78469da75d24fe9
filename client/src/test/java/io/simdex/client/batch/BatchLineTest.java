package io.simdex.client.batch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class BatchLineTest {
    @Test
    void parse_allFields_read() {
        BatchLine l = BatchLine.parse("{\"id\": 7, \"text\": \"hi there\", \"url\": \"http://a.cn/\", "
                + "\"fetch_time\": \"2011-07-01T08:00:00Z\", \"score\": 2.5, \"other\": [1, {\"x\": 2}]}");

        assertEquals(new BatchLine("7", null, "hi there", "http://a.cn/", 1309507200000L, 2.5), l);
    }

    @Test
    void parse_fingerprintAndText_fingerprintWins() {
        BatchLine l = BatchLine.parse("{\"id\": \"a\", \"text\": \"t\", \"fingerprint\": \"ffffffffffffffff\"}");

        assertEquals(-1L, l.fingerprint());
        assertNull(l.text());
    }

    @Test
    void parse_fetchTimeForms_epochMillisDateAndOffset() {
        assertEquals(1309478400000L, BatchLine.parse("{\"id\": \"a\", \"fingerprint\": 1, \"fetch_time\": \"2011-07-01\"}").fetchTime());
        assertEquals(1309478400000L, BatchLine.parse("{\"id\": \"a\", \"fingerprint\": 1, \"fetch_time\": 1309478400000}").fetchTime());
        assertEquals(1309478400000L,
                BatchLine.parse("{\"id\": \"a\", \"fingerprint\": 1, \"fetch_time\": \"2011-07-01T08:00:00+08:00\"}").fetchTime());
    }

    @Test
    void parse_nullsAndEmptyUrl_absent() {
        BatchLine l = BatchLine.parse("{\"id\": \"a\", \"fingerprint\": null, \"text\": \"x\", \"url\": \"\", \"score\": null}");

        assertNull(l.url());
        assertNull(l.score());
        assertEquals("x", l.text());
    }

    @Test
    void parse_badLines_sayWhat() {
        assertMessage("{\"text\": \"x\"}", "missing \"id\"");
        assertMessage("{\"id\": \"a\", \"text\": \"  \"}", "needs \"fingerprint\" or a non-blank \"text\"");
        assertMessage("{\"id\": \"a\", \"fingerprint\": 1, \"score\": \"high\"}", "\"score\" must be a number");
        assertMessage("{\"id\": \"a\", \"fingerprint\": 1, \"fetch_time\": \"yesterday\"}", "not an ISO-8601");
        assertMessage("{\"id\": \"a\\u0001\", \"fingerprint\": 1}", "control character at 1");
        assertMessage("{\"id\": \"" + "x".repeat(257) + "\", \"fingerprint\": 1}", "1..256 bytes");
        assertMessage("{\"id\": 1.5, \"fingerprint\": 1}", "string or an integer");
        assertMessage("{\"id\": \"a\", \"fingerprint\": 1} x", "malformed JSON");
        assertMessage("{\"id\": \"a\", \"fingerprint\": 1", "malformed JSON");
        assertMessage("[1]", "malformed JSON");
    }

    private static void assertMessage(String line, String part) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> BatchLine.parse(line));
        assertTrue(e.getMessage().contains(part), e.getMessage());
    }
}
